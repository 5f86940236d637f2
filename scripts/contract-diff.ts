/*
 * Compares the contract (openapi/openapi.yaml) with its version at a git revision and classifies
 * every change as breaking or not for clients: for callers of the paths, and for receivers of the
 * `webhooks` (the server sends those, so a receiver is a client too).
 *
 *   npm run contract:diff [BASE]    prints the changes; exits 0
 *   npm run contract:check [BASE]   prints them too; exits 1 on a breaking change unless
 *                                   info.version's major was raised or the change is listed in
 *                                   openapi/accepted-changes.json (location + kind + reason)
 *
 * BASE defaults to `git merge-base HEAD main` when that differs from HEAD, else the last tag,
 * else HEAD~1. The working tree's file is compared, so uncommitted edits count.
 *
 * Direction decides: a value the client writes (parameters, request bodies; a webhook's
 * response) breaks a client when the contract accepts fewer values than before (a lower
 * `maximum`, a new `maxLength` or `pattern`, a removed enum value, a new required field); a value
 * the server writes (responses, every webhook payload and header) breaks a client when it may
 * take more values or shapes than before (an added enum value, a wider type, a field that became
 * optional or was removed, a higher `maximum`).
 *
 * No published diff tool covers this for OpenAPI 3.1 with webhooks (oasdiff is a Go binary;
 * openapi-diff reads 3.0 only; optic misses tightened limits and everything under `webhooks`),
 * so the schemas are compared here: each schema is flattened ($refs resolved, `allOf` merged,
 * `oneOf: [X, {type: null}]` read as a nullable X) and the flat forms are compared keyword by
 * keyword. Descriptions, examples and `x-` extensions are not compared.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

// ----------------------------------------------------------------------------------------------
// Changes

/** `in`: the client writes it and the server validates it; `out`: the server writes it. */
export type Flow = 'in' | 'out';

/** What a change does to the set of values a schema allows. */
type Effect = 'narrower' | 'wider' | 'both';

export interface Change {
  breaking: boolean;
  /** Where: `GET /api/v1/entries query.limit`, `webhook entry.started payload.data.entry`, … */
  location: string;
  /** A stable name for what changed: `maximum-decreased`, `enum-value-added`, `path-removed`, … */
  kind: string;
  /** The values involved, for the reader: `500 -> 100`. */
  detail: string;
}

/** A narrower value a client writes, or a wider value the server writes, breaks clients. */
function breaks(flow: Flow, effect: Effect): boolean {
  return effect === 'both' || (flow === 'in' ? effect === 'narrower' : effect === 'wider');
}

class Collector {
  readonly changes: Change[] = [];
  add(breaking: boolean, location: string, kind: string, detail = ''): void {
    this.changes.push({ breaking, location, kind, detail });
  }
  effect(flow: Flow, effect: Effect, location: string, kind: string, detail = ''): void {
    this.add(breaks(flow, effect), location, kind, detail);
  }
}

const show = (value: unknown): string => JSON.stringify(value);

// ----------------------------------------------------------------------------------------------
// Local $refs

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

class Document {
  constructor(readonly root: JsonObject) {}

  /** Follows a local `#/...` pointer. */
  pointer(ref: string): Json {
    if (!ref.startsWith('#')) throw new Error(`Only local $refs are supported: ${ref}`);
    let node: Json = this.root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      const next: Json | undefined = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
      if (next === undefined) throw new Error(`Unresolvable $ref ${ref}`);
      node = next;
    }
    return node;
  }

  /** A parameter, response, header or request body object with its $ref chain followed. */
  deref(node: Json | undefined): JsonObject {
    let current = node;
    for (let depth = 0; isObject(current) && typeof current.$ref === 'string'; depth++) {
      if (depth > 32) throw new Error(`$ref cycle at ${current.$ref}`);
      current = this.pointer(current.$ref);
    }
    return isObject(current) ? current : {};
  }
}

// ----------------------------------------------------------------------------------------------
// Flattened schemas

const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;
const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
type Bound = (typeof UPPER)[number] | (typeof LOWER)[number];

/** Keywords that say nothing a client's values must meet. */
const IGNORED = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'example',
  'examples',
  'externalDocs',
  'xml',
  'deprecated',
  'readOnly',
  'writeOnly',
  'discriminator',
  'contentMediaType',
  'contentEncoding',
]);

/** Keywords read into the flat form below; any other keyword is compared as raw JSON. */
const MODELLED = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'nullable',
  ...UPPER,
  ...LOWER,
  'multipleOf',
  'pattern',
  'format',
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'allOf',
  'oneOf',
  'anyOf',
  'default',
]);

interface Flat {
  /** Set when a $ref cycle was cut here: compared by name only. */
  cycle?: string;
  /** The component a $ref named, for matching `oneOf` variants. */
  refName?: string;
  /** undefined: any type. */
  types?: string[];
  /** undefined: any value. */
  enum?: Json[];
  bounds: Partial<Record<Bound, number>>;
  multipleOf: number[];
  patterns: string[];
  formats: string[];
  uniqueItems: boolean;
  properties: Map<string, Flat>;
  required: Set<string>;
  /** `additionalProperties: false` or `unevaluatedProperties: false`. */
  closed: boolean;
  additional?: Flat;
  items?: Flat;
  prefixItems: Flat[];
  /** `oneOf`/`anyOf` alternatives that do not reduce to a nullable single schema. */
  variants?: { key: string; schema: Flat }[];
  hasDefault: boolean;
  default?: Json;
  other: Record<string, Json>;
}

const emptyFlat = (): Flat => ({
  bounds: {},
  multipleOf: [],
  patterns: [],
  formats: [],
  uniqueItems: false,
  properties: new Map(),
  required: new Set(),
  closed: false,
  prefixItems: [],
  hasDefault: false,
  other: {},
});

const union = <T>(a: T[], b: T[]): T[] => [...new Set([...a, ...b])];
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** `integer` is a `number`: the types both allow. */
function intersectTypes(a: string[], b: string[]): string[] {
  const out = new Set<string>();
  for (const t of a) {
    if (b.includes(t)) out.add(t);
    else if (t === 'integer' && b.includes('number')) out.add('integer');
    else if (t === 'number' && b.includes('integer')) out.add('integer');
  }
  return [...out].sort();
}

/** Both schemas at once (`allOf`). */
function merge(a: Flat, b: Flat): Flat {
  const out = emptyFlat();
  out.cycle = a.cycle ?? b.cycle;
  out.refName = b.refName ?? a.refName;
  out.types = a.types && b.types ? intersectTypes(a.types, b.types) : (a.types ?? b.types);
  out.enum = a.enum && b.enum ? a.enum.filter((v) => b.enum?.some((w) => sameJson(v, w))) : (a.enum ?? b.enum);
  for (const key of UPPER) {
    const values = [a.bounds[key], b.bounds[key]].filter((v): v is number => v !== undefined);
    if (values.length > 0) out.bounds[key] = Math.min(...values);
  }
  for (const key of LOWER) {
    const values = [a.bounds[key], b.bounds[key]].filter((v): v is number => v !== undefined);
    if (values.length > 0) out.bounds[key] = Math.max(...values);
  }
  out.multipleOf = union(a.multipleOf, b.multipleOf);
  out.patterns = union(a.patterns, b.patterns);
  out.formats = union(a.formats, b.formats);
  out.uniqueItems = a.uniqueItems || b.uniqueItems;
  out.properties = new Map(a.properties);
  for (const [name, schema] of b.properties) {
    const mine = out.properties.get(name);
    out.properties.set(name, mine ? merge(mine, schema) : schema);
  }
  out.required = new Set([...a.required, ...b.required]);
  out.closed = a.closed || b.closed;
  out.additional = a.additional && b.additional ? merge(a.additional, b.additional) : (a.additional ?? b.additional);
  out.items = a.items && b.items ? merge(a.items, b.items) : (a.items ?? b.items);
  out.prefixItems = a.prefixItems.length >= b.prefixItems.length ? a.prefixItems : b.prefixItems;
  out.variants = a.variants && b.variants ? [...a.variants, ...b.variants] : (a.variants ?? b.variants);
  out.hasDefault = a.hasDefault || b.hasDefault;
  out.default = b.hasDefault ? b.default : a.default;
  out.other = { ...a.other, ...b.other };
  return out;
}

function addNull(flat: Flat): Flat {
  if (flat.types && !flat.types.includes('null')) flat.types = [...flat.types, 'null'].sort();
  if (flat.enum && !flat.enum.includes(null)) flat.enum = [...flat.enum, null];
  return flat;
}

/** Only `{type: 'null'}` (or `const: null`). */
const isNullOnly = (flat: Flat): boolean =>
  (flat.types?.length === 1 && flat.types[0] === 'null') || (flat.enum?.length === 1 && flat.enum[0] === null);

function flatten(doc: Document, schema: Json | undefined, refs: string[] = []): Flat {
  if (schema === undefined || schema === true) return emptyFlat();
  if (schema === false) return { ...emptyFlat(), types: [] };
  if (!isObject(schema)) return emptyFlat();

  let flat = emptyFlat();
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    const name = ref.split('/').pop() ?? ref;
    flat = refs.includes(ref) ? { ...emptyFlat(), cycle: ref } : flatten(doc, doc.pointer(ref), [...refs, ref]);
    flat.refName = name;
  }

  const own = emptyFlat();
  if (typeof schema.type === 'string') own.types = [schema.type];
  else if (Array.isArray(schema.type)) own.types = schema.type.filter((t): t is string => typeof t === 'string').sort();
  if (Array.isArray(schema.enum)) own.enum = schema.enum;
  if ('const' in schema) own.enum = [schema.const ?? null];
  for (const key of [...UPPER, ...LOWER]) {
    const value = schema[key];
    if (typeof value === 'number') own.bounds[key] = value;
  }
  if (typeof schema.multipleOf === 'number') own.multipleOf = [schema.multipleOf];
  if (typeof schema.pattern === 'string') own.patterns = [schema.pattern];
  if (typeof schema.format === 'string') own.formats = [schema.format];
  own.uniqueItems = schema.uniqueItems === true;
  if (isObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) own.properties.set(name, flatten(doc, sub, refs));
  }
  if (Array.isArray(schema.required)) own.required = new Set(schema.required.filter((r): r is string => typeof r === 'string'));
  own.closed = schema.additionalProperties === false || schema.unevaluatedProperties === false;
  if (isObject(schema.additionalProperties)) own.additional = flatten(doc, schema.additionalProperties, refs);
  if (schema.items !== undefined) own.items = flatten(doc, schema.items, refs);
  if (Array.isArray(schema.prefixItems)) own.prefixItems = schema.prefixItems.map((s) => flatten(doc, s, refs));
  if ('default' in schema) {
    own.hasDefault = true;
    own.default = schema.default;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (!MODELLED.has(key) && !IGNORED.has(key) && !key.startsWith('x-')) own.other[key] = value;
  }
  flat = merge(flat, own);
  if (schema.nullable === true) addNull(flat);

  if (Array.isArray(schema.allOf)) {
    for (const sub of schema.allOf) flat = merge(flat, flatten(doc, sub, refs));
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    const alternatives = list.map((sub) => flatten(doc, sub, refs));
    const nullable = alternatives.some(isNullOnly);
    const rest = alternatives.filter((a) => !isNullOnly(a));
    if (rest.length === 1 && rest[0]) {
      flat = merge(flat, rest[0]);
      if (nullable) addNull(flat);
    } else if (rest.length === 0) {
      flat = merge(flat, { ...emptyFlat(), types: ['null'] });
    } else {
      let unnamed = 0;
      const variants = alternatives.map((a) => ({ key: isNullOnly(a) ? 'null' : (a.refName ?? `#${unnamed++}`), schema: a }));
      flat.variants = [...(flat.variants ?? []), ...variants];
    }
  }
  return flat;
}

// ----------------------------------------------------------------------------------------------
// Schema comparison

const typeCovers = (types: string[], t: string): boolean => types.includes(t) || (t === 'integer' && types.includes('number'));

function compareTypes(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  if (sameJson(a.types, b.types)) return;
  const before = a.types ? a.types.join('|') : 'any';
  const after = b.types ? b.types.join('|') : 'any';
  const lost = a.types ? a.types.filter((t) => !b.types || !typeCovers(b.types, t)) : b.types ? ['any'] : [];
  const gained = b.types ? b.types.filter((t) => !a.types || !typeCovers(a.types, t)) : a.types ? ['any'] : [];
  if (lost.length === 0 && gained.length === 0) return;
  const effect: Effect = lost.length > 0 && gained.length > 0 ? 'both' : lost.length > 0 ? 'narrower' : 'wider';
  const kind = effect === 'narrower' ? 'type-narrowed' : effect === 'wider' ? 'type-widened' : 'type-changed';
  out.effect(flow, effect, loc, kind, `${before} -> ${after}`);
}

function compareEnums(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  if (!a.enum && !b.enum) return;
  if (!a.enum && b.enum) return out.effect(flow, 'narrower', loc, 'enum-added', show(b.enum));
  if (a.enum && !b.enum) return out.effect(flow, 'wider', loc, 'enum-removed', show(a.enum));
  // A null among the values is reported with the type (nullable or not).
  const typed = a.types !== undefined && b.types !== undefined;
  const values = (list: Json[] | undefined) => (list ?? []).filter((v) => !(typed && v === null));
  const before = values(a.enum);
  const after = values(b.enum);
  for (const value of before) {
    if (!after.some((v) => sameJson(v, value))) out.effect(flow, 'narrower', loc, 'enum-value-removed', show(value));
  }
  for (const value of after) {
    if (!before.some((v) => sameJson(v, value))) out.effect(flow, 'wider', loc, 'enum-value-added', show(value));
  }
}

function compareBounds(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  for (const key of [...UPPER, ...LOWER]) {
    const before = a.bounds[key];
    const after = b.bounds[key];
    if (before === after) continue;
    const upper = (UPPER as readonly string[]).includes(key);
    if (before === undefined) out.effect(flow, 'narrower', loc, `${key}-added`, String(after));
    else if (after === undefined) out.effect(flow, 'wider', loc, `${key}-removed`, String(before));
    else {
      const lowered = after < before;
      const effect: Effect = lowered === upper ? 'narrower' : 'wider';
      out.effect(flow, effect, loc, `${key}-${lowered ? 'decreased' : 'increased'}`, `${before} -> ${after}`);
    }
  }
}

/** Lists where each entry is one more condition (patterns, formats, multipleOf). */
function compareConditions<T>(before: T[], after: T[], keyword: string, flow: Flow, loc: string, out: Collector): void {
  const removed = before.filter((v) => !after.includes(v));
  const added = after.filter((v) => !before.includes(v));
  if (removed.length > 0 && added.length > 0) {
    out.effect(flow, 'both', loc, `${keyword}-changed`, `${removed.map(show).join(', ')} -> ${added.map(show).join(', ')}`);
    return;
  }
  for (const value of added) out.effect(flow, 'narrower', loc, `${keyword}-added`, show(value));
  for (const value of removed) out.effect(flow, 'wider', loc, `${keyword}-removed`, show(value));
}

function compareProperties(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  const path = (name: string) => `${loc}.${name}`;
  for (const [name, before] of a.properties) {
    const after = b.properties.get(name);
    if (after) {
      compareSchemas(before, after, flow, path(name), out);
      continue;
    }
    if (flow === 'out') out.add(true, path(name), 'property-removed', 'clients reading it no longer get it');
    else if (b.closed) out.add(true, path(name), 'property-removed', 'clients sending it are refused (closed object)');
    else out.add(false, path(name), 'property-removed', 'no longer described; the object is open');
  }
  for (const name of b.properties.keys()) {
    if (a.properties.has(name)) continue;
    if (flow === 'in') {
      if (b.required.has(name)) out.add(true, path(name), 'required-property-added', 'clients must send it');
      else out.add(false, path(name), 'property-added', 'optional');
    } else if (a.closed || b.closed) {
      out.add(true, path(name), 'property-added-to-closed-object', 'clients validating against the old closed schema refuse it');
    } else {
      out.add(false, path(name), 'property-added', b.required.has(name) ? 'always present' : 'optional');
    }
  }
  // Required-ness of a property on both sides (added and removed ones are reported above).
  for (const name of new Set([...a.required, ...b.required])) {
    if (a.properties.has(name) !== b.properties.has(name)) continue;
    if (a.required.has(name) && !b.required.has(name)) out.effect(flow, 'wider', path(name), 'property-became-optional', 'was required');
    if (!a.required.has(name) && b.required.has(name)) out.effect(flow, 'narrower', path(name), 'property-became-required', 'was optional');
  }
  if (!a.closed && b.closed) out.effect(flow, 'narrower', loc, 'object-closed', 'no properties beyond those listed');
  if (a.closed && !b.closed) out.effect(flow, 'wider', loc, 'object-opened', 'properties beyond those listed allowed');
  if (a.additional || b.additional) compareSchemas(a.additional ?? emptyFlat(), b.additional ?? emptyFlat(), flow, `${loc}{*}`, out);
}

function compareVariants(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  if (!a.variants && !b.variants) return;
  const before = a.variants ?? [];
  const after = b.variants ?? [];
  for (const variant of before) {
    const match = after.find((v) => v.key === variant.key);
    if (match) compareSchemas(variant.schema, match.schema, flow, `${loc}<${variant.key}>`, out);
    else out.effect(flow, 'narrower', loc, 'variant-removed', variant.key);
  }
  for (const variant of after) {
    if (!before.some((v) => v.key === variant.key)) out.effect(flow, 'wider', loc, 'variant-added', variant.key);
  }
}

function compareSchemas(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  if (a.cycle || b.cycle) {
    if (a.cycle !== b.cycle) out.effect(flow, 'both', loc, 'schema-changed', `${a.cycle ?? 'inline'} -> ${b.cycle ?? 'inline'}`);
    return;
  }
  compareTypes(a, b, flow, loc, out);
  compareEnums(a, b, flow, loc, out);
  compareBounds(a, b, flow, loc, out);
  compareConditions(a.multipleOf, b.multipleOf, 'multipleOf', flow, loc, out);
  compareConditions(a.patterns, b.patterns, 'pattern', flow, loc, out);
  compareConditions(a.formats, b.formats, 'format', flow, loc, out);
  if (!a.uniqueItems && b.uniqueItems) out.effect(flow, 'narrower', loc, 'uniqueItems-added');
  if (a.uniqueItems && !b.uniqueItems) out.effect(flow, 'wider', loc, 'uniqueItems-removed');
  // A changed default changes what the server does for a client that leaves the value out.
  if (flow === 'in' && a.hasDefault && (!b.hasDefault || !sameJson(a.default, b.default))) {
    out.add(
      true,
      loc,
      b.hasDefault ? 'default-changed' : 'default-removed',
      `${show(a.default)} -> ${b.hasDefault ? show(b.default) : 'none'}`,
    );
  }
  compareProperties(a, b, flow, loc, out);
  if (a.items || b.items) compareSchemas(a.items ?? emptyFlat(), b.items ?? emptyFlat(), flow, `${loc}[]`, out);
  const tuple = Math.max(a.prefixItems.length, b.prefixItems.length);
  for (let i = 0; i < tuple; i++) {
    compareSchemas(a.prefixItems[i] ?? emptyFlat(), b.prefixItems[i] ?? emptyFlat(), flow, `${loc}[${i}]`, out);
  }
  compareVariants(a, b, flow, loc, out);
  for (const key of new Set([...Object.keys(a.other), ...Object.keys(b.other)])) {
    if (!sameJson(a.other[key], b.other[key]))
      out.effect(flow, 'both', loc, `${key}-changed`, `${show(a.other[key])} -> ${show(b.other[key])}`);
  }
}

// ----------------------------------------------------------------------------------------------
// Operations

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Side {
  doc: Document;
  op: JsonObject;
  pathItem: JsonObject;
}

/** A path template with its parameter names dropped: `/entries/{id}` and `/entries/{entryId}` are one path. */
const pathKey = (path: string): string => path.replace(/\{[^}]*\}/g, '{}');

const paramKey = (param: JsonObject): string => {
  const where = String(param.in);
  const name = String(param.name);
  return `${where}.${where === 'header' ? name.toLowerCase() : name}`;
};

function parameters(side: Side): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  for (const list of [side.pathItem.parameters, side.op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const param = side.doc.deref(raw);
      out.set(paramKey(param), param);
    }
  }
  return out;
}

/** The schema of a parameter or header (`schema`, or the first of `content`). */
function paramSchema(doc: Document, param: JsonObject): Json | undefined {
  if (param.schema !== undefined) return param.schema;
  const content = doc.deref(param.content);
  const first = Object.values(content)[0];
  return isObject(first) ? first.schema : undefined;
}

/** The client's side: parameters and request bodies are written by the caller (API) or by us (webhooks). */
function compareParameters(a: Side, b: Side, flow: Flow, loc: string, out: Collector): void {
  const before = parameters(a);
  const after = parameters(b);
  for (const [key, param] of before) {
    const name = `${loc} ${param.in}.${param.name}`;
    const next = after.get(key);
    if (!next) {
      // A caller still sending it is refused (unknown parameters are 400); a receiver reading it loses it.
      out.add(true, name, 'parameter-removed', param.required === true ? 'was required' : 'was optional');
      continue;
    }
    const wasRequired = param.required === true;
    const isRequired = next.required === true;
    if (wasRequired !== isRequired) {
      out.effect(flow, isRequired ? 'narrower' : 'wider', name, isRequired ? 'parameter-became-required' : 'parameter-became-optional');
    }
    for (const key of ['style', 'explode'] as const) {
      if (!sameJson(param[key], next[key])) out.add(true, name, `parameter-${key}-changed`, `${show(param[key])} -> ${show(next[key])}`);
    }
    compareSchemas(flatten(a.doc, paramSchema(a.doc, param)), flatten(b.doc, paramSchema(b.doc, next)), flow, name, out);
  }
  for (const [key, param] of after) {
    if (before.has(key)) continue;
    const name = `${loc} ${param.in}.${param.name}`;
    const required = param.required === true;
    if (required) out.effect(flow, 'narrower', name, 'required-parameter-added');
    else out.add(false, name, 'parameter-added', 'optional');
  }
}

/** Media types of a `content` map, keyed by lower-cased type. */
function mediaTypes(doc: Document, content: Json | undefined): Map<string, { type: string; schema: Json | undefined }> {
  const out = new Map<string, { type: string; schema: Json | undefined }>();
  for (const [type, media] of Object.entries(doc.deref(content))) {
    out.set(type.toLowerCase(), { type, schema: isObject(media) ? media.schema : undefined });
  }
  return out;
}

const bodyLabel = (prefix: string, type: string): string => (type.toLowerCase() === 'application/json' ? prefix : `${prefix}(${type})`);

function compareContent(
  a: Side,
  b: Side,
  before: Json | undefined,
  after: Json | undefined,
  flow: Flow,
  prefix: string,
  out: Collector,
): void {
  const was = mediaTypes(a.doc, before);
  const is = mediaTypes(b.doc, after);
  for (const [key, media] of was) {
    const next = is.get(key);
    const loc = bodyLabel(prefix, media.type);
    if (!next) out.add(true, loc, 'media-type-removed', media.type);
    else compareSchemas(flatten(a.doc, media.schema), flatten(b.doc, next.schema), flow, loc, out);
  }
  for (const [key, media] of is) {
    if (!was.has(key)) out.add(false, bodyLabel(prefix, media.type), 'media-type-added', media.type);
  }
}

function compareRequestBody(a: Side, b: Side, flow: Flow, loc: string, out: Collector): void {
  const before = a.doc.deref(a.op.requestBody);
  const after = b.doc.deref(b.op.requestBody);
  const had = a.op.requestBody !== undefined;
  const has = b.op.requestBody !== undefined;
  const prefix = `${loc} ${flow === 'out' ? 'payload' : 'request body'}`;
  if (had && !has) return out.add(true, prefix, 'request-body-removed');
  if (!had && has) {
    if (after.required === true) out.effect(flow, 'narrower', prefix, 'required-request-body-added');
    else out.add(false, prefix, 'request-body-added', 'optional');
    return;
  }
  if (!had) return;
  if (before.required !== true && after.required === true) out.effect(flow, 'narrower', prefix, 'request-body-became-required');
  if (before.required === true && after.required !== true) out.effect(flow, 'wider', prefix, 'request-body-became-optional');
  compareContent(a, b, before.content, after.content, flow, prefix, out);
}

const isSuccess = (status: string): boolean => /^2/.test(status) || status === 'default';

/** Responses are written by the server (API) or by the receiver (webhooks): the opposite flow. */
function compareResponses(a: Side, b: Side, flow: Flow, loc: string, out: Collector): void {
  const before = isObject(a.op.responses) ? a.op.responses : {};
  const after = isObject(b.op.responses) ? b.op.responses : {};
  for (const status of Object.keys(before)) {
    const name = `${loc} response ${status}`;
    if (!(status in after)) {
      out.add(isSuccess(status), name, 'response-removed', isSuccess(status) ? 'a success status' : 'an error status');
      continue;
    }
    const was = a.doc.deref(before[status]);
    const is = b.doc.deref(after[status]);
    compareHeaders(a, b, was.headers, is.headers, flow, name, out);
    compareContent(a, b, was.content, is.content, flow, `${name} body`, out);
  }
  for (const status of Object.keys(after)) {
    if (!(status in before)) out.add(false, `${loc} response ${status}`, 'response-added');
  }
}

function compareHeaders(
  a: Side,
  b: Side,
  before: Json | undefined,
  after: Json | undefined,
  flow: Flow,
  loc: string,
  out: Collector,
): void {
  const lower = (doc: Document, headers: Json | undefined) =>
    new Map(Object.entries(doc.deref(headers)).map(([name, header]) => [name.toLowerCase(), { name, header: doc.deref(header) }]));
  const was = lower(a.doc, before);
  const is = lower(b.doc, after);
  for (const [key, { name, header }] of was) {
    const next = is.get(key);
    const where = `${loc} header.${name}`;
    if (!next) {
      out.add(flow === 'out', where, 'header-removed');
      continue;
    }
    if (header.required === true && next.header.required !== true) out.effect(flow, 'wider', where, 'header-became-optional');
    if (header.required !== true && next.header.required === true) out.effect(flow, 'narrower', where, 'header-became-required');
    compareSchemas(flatten(a.doc, paramSchema(a.doc, header)), flatten(b.doc, paramSchema(b.doc, next.header)), flow, where, out);
  }
  for (const [key, { name, header }] of is) {
    if (was.has(key)) continue;
    const required = header.required === true;
    if (flow === 'in' && required) out.add(true, `${loc} header.${name}`, 'required-header-added');
    else out.add(false, `${loc} header.${name}`, 'header-added');
  }
}

/** The scopes an operation needs, per security requirement (`security: []` is none). */
function scopes(top: JsonObject, op: JsonObject): string[] | undefined {
  const security = op.security ?? top.security;
  if (!Array.isArray(security)) return undefined;
  if (security.length === 0 || security.some((req) => isObject(req) && Object.keys(req).length === 0)) return undefined;
  return security.flatMap((req) =>
    isObject(req)
      ? Object.entries(req).flatMap(([scheme, list]) => [scheme, ...(Array.isArray(list) ? list.map((s) => `${scheme}:${s}`) : [])])
      : [],
  );
}

function compareSecurity(a: Side, b: Side, loc: string, out: Collector): void {
  const before = scopes(a.doc.root, a.op);
  const after = scopes(b.doc.root, b.op);
  if (sameJson(before, after)) return;
  if (!before && after) return out.add(true, loc, 'security-added', after.join(', '));
  if (before && !after) return out.add(false, loc, 'security-removed', before.join(', '));
  for (const scope of after ?? []) if (!before?.includes(scope)) out.add(true, loc, 'security-requirement-added', scope);
  for (const scope of before ?? []) if (!after?.includes(scope)) out.add(false, loc, 'security-requirement-removed', scope);
}

function compareOperation(a: Side, b: Side, webhook: boolean, loc: string, out: Collector): void {
  // A call's parameters and body are the client's to write; a webhook's are ours.
  const flow: Flow = webhook ? 'out' : 'in';
  const back: Flow = webhook ? 'in' : 'out';
  if (!webhook) compareSecurity(a, b, loc, out);
  if (a.op.deprecated !== true && b.op.deprecated === true) out.add(false, loc, 'operation-deprecated');
  compareParameters(a, b, flow, loc, out);
  compareRequestBody(a, b, flow, loc, out);
  compareResponses(a, b, back, loc, out);
}

function comparePathItems(before: Document, after: Document, section: 'paths' | 'webhooks', out: Collector): void {
  const webhook = section === 'webhooks';
  const items = (doc: Document) => {
    const map = new Map<string, { name: string; item: JsonObject }>();
    const list = isObject(doc.root[section]) ? doc.root[section] : {};
    for (const [name, item] of Object.entries(list)) map.set(webhook ? name : pathKey(name), { name, item: doc.deref(item) });
    return map;
  };
  const label = (name: string, method: string) =>
    webhook ? `webhook ${name}${method === 'post' ? '' : ` ${method.toUpperCase()}`}` : `${method.toUpperCase()} ${name}`;
  const was = items(before);
  const is = items(after);
  for (const [key, { name, item }] of was) {
    const next = is.get(key);
    if (!next) {
      out.add(true, webhook ? `webhook ${name}` : name, webhook ? 'webhook-removed' : 'path-removed');
      continue;
    }
    for (const method of METHODS) {
      const op = item[method];
      const nextOp = next.item[method];
      if (!isObject(op)) continue;
      if (!isObject(nextOp)) {
        out.add(true, label(next.name, method), webhook ? 'webhook-removed' : 'operation-removed');
        continue;
      }
      const a = { doc: before, op, pathItem: item };
      const b = { doc: after, op: nextOp, pathItem: next.item };
      compareOperation(a, b, webhook, label(next.name, method), out);
    }
    for (const method of METHODS) {
      if (!isObject(item[method]) && isObject(next.item[method]))
        out.add(false, label(next.name, method), webhook ? 'webhook-added' : 'operation-added');
    }
  }
  for (const [key, { name }] of is) {
    if (!was.has(key)) out.add(false, webhook ? `webhook ${name}` : name, webhook ? 'webhook-added' : 'path-added');
  }
}

/** Every change from `before` to `after` (parsed OpenAPI 3.x documents; `{}` for none). */
export function diffContracts(before: unknown, after: unknown): Change[] {
  const out = new Collector();
  const a = new Document(isObject(before) ? before : {});
  const b = new Document(isObject(after) ? after : {});
  comparePathItems(a, b, 'paths', out);
  comparePathItems(a, b, 'webhooks', out);
  return out.changes;
}

// ----------------------------------------------------------------------------------------------
// The gate

export interface AcceptedChange {
  /** The location as printed; `*` matches any run of characters. */
  location: string;
  kind: string;
  reason: string;
}

export interface Verdict {
  changes: (Change & { accepted?: AcceptedChange })[];
  /** Breaking changes neither accepted nor allowed by a major version bump. */
  blocking: Change[];
  majorRaised: boolean;
  /** Accepted entries that match no change (safe to drop). */
  unused: AcceptedChange[];
}

const major = (doc: unknown): number | undefined => {
  const version = isObject(doc) && isObject(doc.info) ? doc.info.version : undefined;
  const match = typeof version === 'string' ? /^v?(\d+)/.exec(version) : null;
  return match ? Number(match[1]) : undefined;
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

export function judge(before: unknown, after: unknown, accepted: AcceptedChange[] = []): Verdict {
  const used = new Set<AcceptedChange>();
  const changes: Verdict['changes'] = diffContracts(before, after).map((change) => {
    const match = change.breaking ? accepted.find((a) => a.kind === change.kind && globMatch(a.location, change.location)) : undefined;
    if (match) used.add(match);
    return match ? { ...change, accepted: match } : change;
  });
  const was = major(before);
  const is = major(after);
  const majorRaised = was !== undefined && is !== undefined && is > was;
  const blocking = majorRaised ? [] : changes.filter((c) => c.breaking && !c.accepted);
  return { changes, blocking, majorRaised, unused: accepted.filter((a) => !used.has(a)) };
}

/** One line per change, the breaking ones first. */
export function formatChanges(changes: Verdict['changes']): string[] {
  const sorted = [...changes.filter((c) => c.breaking), ...changes.filter((c) => !c.breaking)];
  return sorted.map((c) => {
    const what = c.detail ? `${c.kind}: ${c.detail}` : c.kind;
    const accepted = c.accepted ? `  (accepted: ${c.accepted.reason})` : '';
    return `${c.breaking ? 'BREAKING    ' : 'non-breaking'}  ${c.location}  ${what}${accepted}`;
  });
}

// ----------------------------------------------------------------------------------------------
// Command line

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const contractFile = 'openapi/openapi.yaml';
const acceptedFile = 'openapi/accepted-changes.json';

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** The merge base with main when it is not HEAD itself, else the last tag, else HEAD~1. */
function defaultBase(): { base: string; why: string } | undefined {
  const head = git(['rev-parse', 'HEAD']);
  const mergeBase = git(['merge-base', 'HEAD', 'main']);
  if (mergeBase && mergeBase !== head) return { base: mergeBase, why: 'merge base with main' };
  const tag = git(['describe', '--tags', '--abbrev=0']);
  if (tag) return { base: tag, why: 'last tag' };
  if (git(['rev-parse', '--verify', '--quiet', 'HEAD~1^{commit}'])) return { base: 'HEAD~1', why: 'no tag; the previous commit' };
  return undefined;
}

function main(argv: string[]): number {
  const check = argv.includes('--check');
  const explicit = argv.find((a) => !a.startsWith('--'));
  const chosen = explicit ? { base: explicit, why: 'as given' } : defaultBase();
  if (!chosen) {
    console.log(`contract: no base revision to compare ${contractFile} with (no main, tag or previous commit); nothing checked.`);
    return 0;
  }
  const commit = git(['rev-parse', '--verify', '--quiet', `${chosen.base}^{commit}`]);
  if (!commit) {
    console.error(`contract: unknown revision ${chosen.base}`);
    return 2;
  }
  const baseText = git(['show', `${commit}:${contractFile}`]);
  const before: unknown = baseText === undefined ? {} : parse(baseText);
  const after: unknown = parse(readFileSync(join(root, contractFile), 'utf8'));
  let accepted: AcceptedChange[] = [];
  try {
    accepted = parseAccepted(readFileSync(join(root, acceptedFile), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const verdict = judge(before, after, accepted);
  const version = (doc: unknown) => (isObject(doc) && isObject(doc.info) ? String(doc.info.version) : 'none');
  const at = commit.startsWith(chosen.base) ? commit.slice(0, 7) : `${chosen.base} = ${commit.slice(0, 7)}`;
  const there = baseText === undefined ? 'no contract there' : `version ${version(before)}`;
  console.log(`${contractFile} at ${at} (${chosen.why}; ${there}) -> working tree (version ${version(after)})`);
  for (const line of formatChanges(verdict.changes)) console.log(line);
  const breaking = verdict.changes.filter((c) => c.breaking);
  const acceptedCount = breaking.filter((c) => c.accepted).length;
  console.log(`${verdict.changes.length} changes, ${breaking.length} breaking (${acceptedCount} accepted in ${acceptedFile}).`);
  for (const entry of verdict.unused) console.log(`note: ${acceptedFile} entry matches no change: ${entry.kind} at ${entry.location}`);
  if (verdict.majorRaised && breaking.length > 0) console.log('info.version has a new major version: breaking changes are allowed.');
  if (!check || verdict.blocking.length === 0) return 0;
  const sample = verdict.blocking
    .slice(0, 3)
    .map((c) => ({ location: c.location, kind: c.kind, reason: 'why clients are not broken, or how they were told' }));
  console.log(
    `contract:check failed: ${verdict.blocking.length} breaking change(s) for clients. Raise info.version's major, or have each reviewed` +
      ` and listed in ${acceptedFile} ("accepted": [...]) with a reason${verdict.blocking.length > 3 ? ' (the first three shown)' : ''}:`,
  );
  console.log(JSON.stringify(sample, null, 2));
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
