/*
 * The gate: which breaking changes may pass. A breaking change passes when it is listed with a
 * reason in openapi/accepted-changes.json, or when info.version's major was raised; a removal
 * (of a path, operation, webhook, parameter or property) passes a raised major only when the
 * last release already marked it `deprecated: true`, so clients had at least one minor version
 * of warning (the Deprecation and Sunset headers) before it goes.
 */
import { type Change, diffContracts, isObject } from './diff.js';

export interface AcceptedChange {
  /** The location as printed; `*` matches any run of characters. */
  location: string;
  kind: string;
  reason: string;
}

/**
 * What the gate makes of a change: `non-breaking`; `accepted` (listed with a reason); `major`
 * (allowed by a new major version); `blocking` (fails contract:check).
 */
export type Status = 'non-breaking' | 'accepted' | 'major' | 'blocking';

export interface Judged extends Change {
  status: Status;
  accepted?: AcceptedChange;
  /** Why a breaking change blocks although the major was raised. */
  note?: string;
}

export interface Verdict {
  changes: Judged[];
  /** Breaking changes neither accepted nor allowed by a major version bump. */
  blocking: Judged[];
  majorRaised: boolean;
  /** Accepted entries that match no change (safe to drop). */
  unused: AcceptedChange[];
}

/** The last released contract (a tag), for the rule on removals under a new major. */
export interface Release {
  name: string;
  document: unknown;
}

/** Kinds that remove something a contract can mark `deprecated: true`. */
export const REMOVALS = new Set(['path-removed', 'operation-removed', 'webhook-removed', 'parameter-removed', 'property-removed']);

export const versionOf = (doc: unknown): string | undefined => {
  const version = isObject(doc) && isObject(doc.info) ? doc.info.version : undefined;
  return typeof version === 'string' ? version : undefined;
};

/** [major, minor] of `1.4.2` or `v1.4`. */
const majorMinor = (doc: unknown): [number, number] | undefined => {
  const match = /^v?(\d+)(?:\.(\d+))?/.exec(versionOf(doc) ?? '');
  return match ? [Number(match[1]), Number(match[2] ?? 0)] : undefined;
};

const globMatch = (pattern: string, text: string): boolean =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(text);

export function parseAccepted(text: string): AcceptedChange[] {
  const data: unknown = JSON.parse(text);
  const list = isObject(data) ? data.accepted : undefined;
  if (!Array.isArray(list)) throw new Error('accepted-changes: expected {"accepted": [...]}');
  return list.map((entry, i) => {
    if (
      !isObject(entry) ||
      typeof entry.location !== 'string' ||
      typeof entry.kind !== 'string' ||
      typeof entry.reason !== 'string' ||
      !entry.reason.trim()
    ) {
      throw new Error(`accepted-changes: entry ${i} needs a location, a kind and a non-empty reason`);
    }
    return { location: entry.location, kind: entry.kind, reason: entry.reason };
  });
}

export function judge(before: unknown, after: unknown, accepted: AcceptedChange[] = [], options: { release?: Release } = {}): Verdict {
  const used = new Set<AcceptedChange>();
  const was = majorMinor(before);
  const is = majorMinor(after);
  const majorRaised = was !== undefined && is !== undefined && is[0] > was[0];
  const deprecatedInRelease = majorRaised ? releasedDeprecations(after, is, options.release) : new Set<string>();
  const changes: Judged[] = diffContracts(before, after).map((change) => {
    if (!change.breaking) return { ...change, status: 'non-breaking' };
    const match = accepted.find((a) => a.kind === change.kind && globMatch(a.location, change.location));
    if (match) {
      used.add(match);
      return { ...change, status: 'accepted', accepted: match };
    }
    if (!majorRaised) return { ...change, status: 'blocking' };
    if (!REMOVALS.has(change.kind) || (change.wasDeprecated && deprecatedInRelease.has(key(change)))) return { ...change, status: 'major' };
    const release = options.release ? `release ${options.release.name}` : 'release (there is no release tag)';
    return {
      ...change,
      status: 'blocking',
      note: `removed under a new major version, but not deprecated in the last ${release}: deprecate it first (deprecated: true with x-deprecated-at and x-sunset) in a minor release, or accept the removal with a reason`,
    };
  });
  return { changes, blocking: changes.filter((c) => c.status === 'blocking'), majorRaised, unused: accepted.filter((a) => !used.has(a)) };
}

const key = (change: Change) => `${change.kind} ${change.location}`;

/**
 * The removals (from the release to `after`) of things the release marked deprecated, when the
 * release's minor version is older than the new one: those were deprecated for a minor version.
 */
function releasedDeprecations(after: unknown, is: [number, number], release: Release | undefined): Set<string> {
  const released = release ? majorMinor(release.document) : undefined;
  if (!release || !released || released[0] > is[0] || (released[0] === is[0] && released[1] >= is[1])) return new Set();
  return new Set(
    diffContracts(release.document, after)
      .filter((c) => c.wasDeprecated)
      .map(key),
  );
}
