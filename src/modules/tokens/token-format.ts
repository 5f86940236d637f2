import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomString } from '../../ids.js';

/**
 * API token format: `tt_<prefix>_<secret>`; the prefix is 8 alphanumeric characters (shown in
 * listings, used to find the row), the secret 43 base64url characters (32 CSPRNG bytes). Only the
 * SHA-256 of the whole string is stored.
 */
const TOKEN_PATTERN = /^tt_([A-Za-z0-9]{8})_([A-Za-z0-9_-]{43})$/;
const PREFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface MintedToken {
  token: string;
  prefix: string;
  hash: string;
}

export function mintToken(): MintedToken {
  const prefix = randomString(8, PREFIX_ALPHABET);
  const secret = randomBytes(32).toString('base64url');
  const token = `tt_${prefix}_${secret}`;
  return { token, prefix, hash: hashToken(token) };
}

/** The prefix of a well-formed token, or null. */
export function tokenPrefix(token: string): string | null {
  return TOKEN_PATTERN.exec(token)?.[1] ?? null;
}

/** Hex SHA-256 of the token (on every API request: node's one-shot hash, a third of createHash's work). */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Constant-time comparison of two hex SHA-256 digests. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length === 32 && timingSafeEqual(left, right);
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1] ?? null;
}
