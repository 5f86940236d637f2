/*
 * The comparison of two contracts: every change, classified for clients, with where it is in
 * each document (a JSON pointer, which scripts/contract-diff/source.ts turns into a line of the
 * YAML).
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

// ----------------------------------------------------------------------------------------------
// Changes

/** `in`: the client writes it and the server validates it; `out`: the server writes it. */
export type Flow = 'in' | 'out';

/** What a change does to the set of values a schema allows. */
type Effect = 'narrower' | 'wider' | 'both';

/**
 * Where a change is: a JSON pointer (`#/components/parameters/Limit/schema/maximum`) into the
 * new document, the old one, or both. A removed thing has no place of its own in the new
 * document: `after` then names its parent there (the schema that lost a property, the
 * operation that lost a parameter), and `before` where it was.
 */
export interface Where {
  after?: string;
  before?: string;
}

export interface Change {
  breaking: boolean;
  /** Where: `GET /api/v1/entries query.limit`, `webhook entry.started payload.data.entry`, … */
  location: string;
  /** A stable name for what changed: `maximum-decreased`, `enum-value-added`, `path-removed`, … */
  kind: string;
  /** The values involved, for the reader: `500 -> 100`. */
  detail: string;
  /** Its place in the documents. */
  where: Where;
  /** A removed thing that the old document marked `deprecated: true`. */
  wasDeprecated?: boolean;
}

/** A narrower value a client writes, or a wider value the server writes, breaks clients. */
function breaks(flow: Flow, effect: Effect): boolean {
  return effect === 'both' || (flow === 'in' ? effect === 'narrower' : effect === 'wider');
}

class Collector {
  readonly changes: Change[] = [];
  add(breaking: boolean, location: string, kind: string, detail = '', where: Where = {}, wasDeprecated = false): void {
    this.changes.push({ breaking, location, kind, detail, where, ...(wasDeprecated ? { wasDeprecated } : {}) });
  }
  effect(flow: Flow, effect: Effect, location: string, kind: string, detail = '', where: Where = {}): void {
    this.add(breaks(flow, effect), location, kind, detail, where);
  }
}

const show = (value: unknown): string => JSON.stringify(value);

// ----------------------------------------------------------------------------------------------
// JSON pointers and local $refs

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `base` + one segment, escaped as a JSON pointer: `ptr('#/paths', '/api/v1/me')` is `#/paths/~1api~1v1~1me`. */
export const ptr = (base: string, ...segments: (string | number)[]): string =>
  segments.reduce<string>((out, segment) => `${out}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`, base);

/** The segments of a pointer, unescaped (the inverse of ptr from `#`). */
export const segmentsOf = (pointer: string): string[] =>
  pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((raw) => decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~'));

/** A node and the pointer it was found at. */
interface Located {
  node: JsonObject;
  at: string;
}

class Document {
  constructor(readonly root: JsonObject) {}

  /** Follows a local `#/...` pointer. */
  pointer(ref: string): Json {
    if (!ref.startsWith('#')) throw new Error(`Only local $refs are supported: ${ref}`);
    let node: Json = this.root;
    for (const key of segmentsOf(ref)) {
      const next: Json | undefined = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
      if (next === undefined) throw new Error(`Unresolvable $ref ${ref}`);
      node = next;
    }
    return node;
  }

  /** A parameter, response, header or request body object with its $ref chain followed, and where it ends. */
  deref(node: Json | undefined, at: string): Located {
    let current = node;
    let where = at;
    for (let depth = 0; isObject(current) && typeof current.$ref === 'string'; depth++) {
      if (depth > 32) throw new Error(`$ref cycle at ${current.$ref}`);
      where = current.$ref;
      current = this.pointer(current.$ref);
    }
    return { node: isObject(current) ? current : {}, at: where };
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
  /** Where this schema is written in its context (a property's key, a parameter's `schema`). */
  at?: string;
  /** Where each keyword that this flat form holds was written: `maximum` -> `#/…/schema/maximum`. */
  src: Record<string, string>;
  /** `deprecated: true`. */
  deprecated: boolean;
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
  src: {},
  deprecated: false,
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

/** Both schemas at once (`allOf`). `a` is the schema being built: its place is kept. */
function merge(a: Flat, b: Flat): Flat {
  const out = emptyFlat();
  out.cycle = a.cycle ?? b.cycle;
  out.refName = b.refName ?? a.refName;
  out.at = a.at ?? b.at;
  out.src = { ...a.src, ...b.src };
  out.deprecated = a.deprecated || b.deprecated;
  out.types = a.types && b.types ? intersectTypes(a.types, b.types) : (a.types ?? b.types);
  out.enum = a.enum && b.enum ? a.enum.filter((v) => b.enum?.some((w) => sameJson(v, w))) : (a.enum ?? b.enum);
  for (const key of [...UPPER, ...LOWER]) {
    const values = [a.bounds[key], b.bounds[key]].filter((v): v is number => v !== undefined);
    if (values.length === 0) continue;
    const value = (UPPER as readonly string[]).includes(key) ? Math.min(...values) : Math.max(...values);
    out.bounds[key] = value;
    // The keyword that binds is the one to point at.
    const source = b.bounds[key] === value ? b.src[key] : a.src[key];
    if (source !== undefined) out.src[key] = source;
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

/** The schema's own keywords (no $ref, allOf, oneOf), with where each was written. */
function ownKeywords(doc: Document, schema: JsonObject, at: string, refs: string[]): Flat {
  const own = emptyFlat();
  const src = (key: string) => (own.src[key] = ptr(at, key));
  if (typeof schema.type === 'string') own.types = [schema.type];
  else if (Array.isArray(schema.type)) own.types = schema.type.filter((t): t is string => typeof t === 'string').sort();
  if (own.types) src('type');
  if (Array.isArray(schema.enum)) {
    own.enum = schema.enum;
    src('enum');
  }
  if ('const' in schema) {
    own.enum = [schema.const ?? null];
    own.src.enum = ptr(at, 'const');
  }
  for (const key of [...UPPER, ...LOWER]) {
    const value = schema[key];
    if (typeof value !== 'number') continue;
    own.bounds[key] = value;
    src(key);
  }
  for (const key of ['multipleOf', 'pattern', 'format', 'uniqueItems', 'required', 'default', 'items', 'prefixItems'])
    if (key in schema) src(key);
  if (typeof schema.multipleOf === 'number') own.multipleOf = [schema.multipleOf];
  if (typeof schema.pattern === 'string') own.patterns = [schema.pattern];
  if (typeof schema.format === 'string') own.formats = [schema.format];
  own.uniqueItems = schema.uniqueItems === true;
  own.deprecated = schema.deprecated === true;
  if (isObject(schema.properties)) {
    src('properties');
    for (const [name, sub] of Object.entries(schema.properties))
      own.properties.set(name, flatten(doc, sub, ptr(at, 'properties', name), refs));
  }
  if (Array.isArray(schema.required)) own.required = new Set(schema.required.filter((r): r is string => typeof r === 'string'));
  for (const key of ['additionalProperties', 'unevaluatedProperties'] as const) {
    if (schema[key] !== false) continue;
    own.closed = true;
    src(key);
  }
  if (isObject(schema.additionalProperties)) {
    own.additional = flatten(doc, schema.additionalProperties, ptr(at, 'additionalProperties'), refs);
    src('additionalProperties');
  }
  if (schema.items !== undefined) own.items = flatten(doc, schema.items, ptr(at, 'items'), refs);
  if (Array.isArray(schema.prefixItems))
    own.prefixItems = schema.prefixItems.map((s, i) => flatten(doc, s, ptr(at, 'prefixItems', i), refs));
  if ('default' in schema) {
    own.hasDefault = true;
    own.default = schema.default;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (MODELLED.has(key) || IGNORED.has(key) || key.startsWith('x-')) continue;
    own.other[key] = value;
    src(key);
  }
  return own;
}

/**
 * The flat form of each document's components, made once: a component met again (every error
 * response names Problem, every entry payload Entry) is the same flat form, copied for the place
 * that names it (that place sets its own `at` and `refName`; nothing else changes a flat form once
 * made). One whose flattening met a cycle is made again each time: its cycle's marker depends on
 * the path that reached it. Each Document is one side of one comparison.
 */
const flatComponents = new WeakMap<Document, Map<string, Flat>>();
let cyclesMet = 0;

function flattenRef(doc: Document, ref: string, refs: string[]): Flat {
  let made = flatComponents.get(doc);
  if (!made) flatComponents.set(doc, (made = new Map()));
  const known = made.get(ref);
  if (known) return { ...known };
  const cycles = cyclesMet;
  const flat = flatten(doc, doc.pointer(ref), ref, [...refs, ref]);
  if (cyclesMet === cycles) made.set(ref, flat);
  return { ...flat };
}

/** A schema's flat form; `at` is where it is written. */
function flatten(doc: Document, schema: Json | undefined, at: string | undefined, refs: string[] = []): Flat {
  if (schema === undefined || schema === true) return { ...emptyFlat(), ...(at ? { at } : {}) };
  if (schema === false) return { ...emptyFlat(), types: [], ...(at ? { at } : {}) };
  if (!isObject(schema)) return emptyFlat();
  const here = at ?? '#';

  let flat = emptyFlat();
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    const name = ref.split('/').pop() ?? ref;
    if (refs.includes(ref)) {
      cyclesMet++;
      flat = { ...emptyFlat(), cycle: ref };
    } else flat = flattenRef(doc, ref, refs);
    flat.refName = name;
  }
  // The place in context (a property's key), not the component a $ref names.
  flat.at = at;
  flat = merge(flat, ownKeywords(doc, schema, here, refs));
  if (schema.nullable === true) addNull(flat);

  if (Array.isArray(schema.allOf)) {
    schema.allOf.forEach((sub, i) => (flat = merge(flat, flatten(doc, sub, ptr(here, 'allOf', i), refs))));
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    const alternatives = list.map((sub, i) => flatten(doc, sub, ptr(here, keyword, i), refs));
    const nullable = alternatives.some(isNullOnly);
    const rest = alternatives.filter((a) => !isNullOnly(a));
    if (rest.length === 1 && rest[0]) {
      flat = merge(flat, rest[0]);
      if (nullable) {
        addNull(flat);
        flat.src.type = ptr(here, keyword);
      }
    } else if (rest.length === 0) {
      flat = merge(flat, { ...emptyFlat(), types: ['null'], src: { type: ptr(here, keyword) } });
    } else {
      let unnamed = 0;
      const variants = alternatives.map((a) => ({ key: isNullOnly(a) ? 'null' : (a.refName ?? `#${unnamed++}`), schema: a }));
      flat.variants = [...(flat.variants ?? []), ...variants];
      flat.src.variants = ptr(here, keyword);
    }
  }
  return flat;
}

// ----------------------------------------------------------------------------------------------
// Schema comparison

/** Where a keyword of a flat schema was written, else the schema itself. */
const keyword = (flat: Flat, key: string): string | undefined => flat.src[key] ?? flat.at;

/** A keyword present on both sides, or only on one: the new side's place, or the schema that lost it. */
const both = (a: Flat, b: Flat, key: string): Where => clean({ after: keyword(b, key), before: keyword(a, key) });
const clean = (where: Where): Where => Object.fromEntries(Object.entries(where).filter(([, value]) => value !== undefined)) as Where;

const typeCovers = (types: string[], t: string): boolean => types.includes(t) || (t === 'integer' && types.includes('number'));

function compareTypes(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  if (a.types === b.types || (a.types && b.types && a.types.length === b.types.length && a.types.every((t, i) => t === b.types?.[i])))
    return;
  const before = a.types ? a.types.join('|') : 'any';
  const after = b.types ? b.types.join('|') : 'any';
  const lost = a.types ? a.types.filter((t) => !b.types || !typeCovers(b.types, t)) : b.types ? ['any'] : [];
  const gained = b.types ? b.types.filter((t) => !a.types || !typeCovers(a.types, t)) : a.types ? ['any'] : [];
  if (lost.length === 0 && gained.length === 0) return;
  const effect: Effect = lost.length > 0 && gained.length > 0 ? 'both' : lost.length > 0 ? 'narrower' : 'wider';
  const kind = effect === 'narrower' ? 'type-narrowed' : effect === 'wider' ? 'type-widened' : 'type-changed';
  out.effect(flow, effect, loc, kind, `${before} -> ${after}`, both(a, b, 'type'));
}

function compareEnums(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  if (!a.enum && !b.enum) return;
  const where = both(a, b, 'enum');
  if (!a.enum && b.enum) return out.effect(flow, 'narrower', loc, 'enum-added', show(b.enum), where);
  if (a.enum && !b.enum) return out.effect(flow, 'wider', loc, 'enum-removed', show(a.enum), where);
  // A null among the values is reported with the type (nullable or not).
  const typed = a.types !== undefined && b.types !== undefined;
  const values = (list: Json[] | undefined) => (list ?? []).filter((v) => !(typed && v === null));
  const before = values(a.enum);
  const after = values(b.enum);
  for (const value of before) {
    if (!after.some((v) => sameJson(v, value))) out.effect(flow, 'narrower', loc, 'enum-value-removed', show(value), where);
  }
  for (const value of after) {
    if (!before.some((v) => sameJson(v, value))) out.effect(flow, 'wider', loc, 'enum-value-added', show(value), where);
  }
}

function compareBounds(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  for (const key of [...UPPER, ...LOWER]) {
    const before = a.bounds[key];
    const after = b.bounds[key];
    if (before === after) continue;
    const upper = (UPPER as readonly string[]).includes(key);
    const where = both(a, b, key);
    if (before === undefined) out.effect(flow, 'narrower', loc, `${key}-added`, String(after), where);
    else if (after === undefined) out.effect(flow, 'wider', loc, `${key}-removed`, String(before), where);
    else {
      const lowered = after < before;
      const effect: Effect = lowered === upper ? 'narrower' : 'wider';
      out.effect(flow, effect, loc, `${key}-${lowered ? 'decreased' : 'increased'}`, `${before} -> ${after}`, where);
    }
  }
}

/**
 * Lists where each entry is one more condition (patterns, formats, multipleOf). `place` says
 * where, asked only when something changed (most schemas compared have no change).
 */
function compareConditions<T>(before: T[], after: T[], key: string, place: () => Where, flow: Flow, loc: string, out: Collector): void {
  if (before.length === 0 && after.length === 0) return;
  const removed = before.filter((v) => !after.includes(v));
  const added = after.filter((v) => !before.includes(v));
  if (removed.length === 0 && added.length === 0) return;
  const where = place();
  if (removed.length > 0 && added.length > 0) {
    out.effect(flow, 'both', loc, `${key}-changed`, `${removed.map(show).join(', ')} -> ${added.map(show).join(', ')}`, where);
    return;
  }
  for (const value of added) out.effect(flow, 'narrower', loc, `${key}-added`, show(value), where);
  for (const value of removed) out.effect(flow, 'wider', loc, `${key}-removed`, show(value), where);
}

function compareProperties(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  const path = (name: string) => `${loc}.${name}`;
  for (const [name, before] of a.properties) {
    const after = b.properties.get(name);
    if (after) {
      if (!before.deprecated && after.deprecated) out.add(false, path(name), 'property-deprecated', '', clean({ after: after.at }));
      compareSchemas(before, after, flow, path(name), out);
      continue;
    }
    // Gone: the properties it was one of, in the new document; where it was, in the old one.
    const where = clean({ after: b.src.properties ?? b.at, before: before.at });
    if (flow === 'out') out.add(true, path(name), 'property-removed', 'clients reading it no longer get it', where, before.deprecated);
    else if (b.closed)
      out.add(true, path(name), 'property-removed', 'clients sending it are refused (closed object)', where, before.deprecated);
    else out.add(false, path(name), 'property-removed', 'no longer described; the object is open', where, before.deprecated);
  }
  for (const [name, added] of b.properties) {
    if (a.properties.has(name)) continue;
    const where = clean({ after: added.at });
    if (flow === 'in') {
      if (b.required.has(name)) out.add(true, path(name), 'required-property-added', 'clients must send it', where);
      else out.add(false, path(name), 'property-added', 'optional', where);
    } else if (a.closed || b.closed) {
      out.add(true, path(name), 'property-added-to-closed-object', 'clients validating against the old closed schema refuse it', where);
    } else {
      out.add(false, path(name), 'property-added', b.required.has(name) ? 'always present' : 'optional', where);
    }
  }
  // Required-ness of a property on both sides (added and removed ones are reported above).
  for (const name of new Set([...a.required, ...b.required])) {
    if (a.properties.has(name) !== b.properties.has(name)) continue;
    const where = both(a, b, 'required');
    if (a.required.has(name) && !b.required.has(name))
      out.effect(flow, 'wider', path(name), 'property-became-optional', 'was required', where);
    if (!a.required.has(name) && b.required.has(name))
      out.effect(flow, 'narrower', path(name), 'property-became-required', 'was optional', where);
  }
  const closing = clean({
    after: b.src.additionalProperties ?? b.src.unevaluatedProperties ?? b.at,
    before: a.src.additionalProperties ?? a.src.unevaluatedProperties ?? a.at,
  });
  if (!a.closed && b.closed) out.effect(flow, 'narrower', loc, 'object-closed', 'no properties beyond those listed', closing);
  if (a.closed && !b.closed) out.effect(flow, 'wider', loc, 'object-opened', 'properties beyond those listed allowed', closing);
  if (a.additional || b.additional)
    compareSchemas(a.additional ?? { ...emptyFlat(), at: a.at }, b.additional ?? { ...emptyFlat(), at: b.at }, flow, `${loc}{*}`, out);
}

function compareVariants(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  if (!a.variants && !b.variants) return;
  const before = a.variants ?? [];
  const after = b.variants ?? [];
  const where = both(a, b, 'variants');
  for (const variant of before) {
    const match = after.find((v) => v.key === variant.key);
    if (match) compareSchemas(variant.schema, match.schema, flow, `${loc}<${variant.key}>`, out);
    else out.effect(flow, 'narrower', loc, 'variant-removed', variant.key, where);
  }
  for (const variant of after) {
    if (!before.some((v) => v.key === variant.key)) out.effect(flow, 'wider', loc, 'variant-added', variant.key, where);
  }
}

/** An absent sub-schema (no `items` on one side) compared as "anything", placed at its parent. */
const orAny = (flat: Flat | undefined, parent: Flat): Flat => flat ?? { ...emptyFlat(), ...(parent.at ? { at: parent.at } : {}) };

function compareSchemas(a: Flat, b: Flat, flow: Flow, loc: string, out: Collector): void {
  if (a.cycle || b.cycle) {
    if (a.cycle !== b.cycle)
      out.effect(
        flow,
        'both',
        loc,
        'schema-changed',
        `${a.cycle ?? 'inline'} -> ${b.cycle ?? 'inline'}`,
        clean({ after: b.at, before: a.at }),
      );
    return;
  }
  compareTypes(a, b, flow, loc, out);
  compareEnums(a, b, flow, loc, out);
  compareBounds(a, b, flow, loc, out);
  compareConditions(a.multipleOf, b.multipleOf, 'multipleOf', () => both(a, b, 'multipleOf'), flow, loc, out);
  compareConditions(a.patterns, b.patterns, 'pattern', () => both(a, b, 'pattern'), flow, loc, out);
  compareConditions(a.formats, b.formats, 'format', () => both(a, b, 'format'), flow, loc, out);
  if (!a.uniqueItems && b.uniqueItems) out.effect(flow, 'narrower', loc, 'uniqueItems-added', '', both(a, b, 'uniqueItems'));
  if (a.uniqueItems && !b.uniqueItems) out.effect(flow, 'wider', loc, 'uniqueItems-removed', '', both(a, b, 'uniqueItems'));
  // A changed default changes what the server does for a client that leaves the value out.
  if (flow === 'in' && a.hasDefault && (!b.hasDefault || !sameJson(a.default, b.default))) {
    out.add(
      true,
      loc,
      b.hasDefault ? 'default-changed' : 'default-removed',
      `${show(a.default)} -> ${b.hasDefault ? show(b.default) : 'none'}`,
      both(a, b, 'default'),
    );
  }
  compareProperties(a, b, flow, loc, out);
  if (a.items || b.items) compareSchemas(orAny(a.items, a), orAny(b.items, b), flow, `${loc}[]`, out);
  const tuple = Math.max(a.prefixItems.length, b.prefixItems.length);
  for (let i = 0; i < tuple; i++) compareSchemas(orAny(a.prefixItems[i], a), orAny(b.prefixItems[i], b), flow, `${loc}[${i}]`, out);
  compareVariants(a, b, flow, loc, out);
  for (const key of new Set([...Object.keys(a.other), ...Object.keys(b.other)])) {
    if (!sameJson(a.other[key], b.other[key]))
      out.effect(flow, 'both', loc, `${key}-changed`, `${show(a.other[key])} -> ${show(b.other[key])}`, both(a, b, key));
  }
}

// ----------------------------------------------------------------------------------------------
// Operations

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Side {
  doc: Document;
  op: JsonObject;
  /** Where the operation is: `#/paths/~1api~1v1~1me/get`. */
  at: string;
  pathItem: JsonObject;
  pathAt: string;
}

/** A path template with its parameter names dropped: `/entries/{id}` and `/entries/{entryId}` are one path. */
const pathKey = (path: string): string => path.replace(/\{[^}]*\}/g, '{}');

const paramKey = (param: JsonObject): string => {
  const where = String(param.in);
  const name = String(param.name);
  return `${where}.${where === 'header' ? name.toLowerCase() : name}`;
};

interface Parameter {
  param: JsonObject;
  /** Where it is listed (the operation's or the path's `parameters` item). */
  listed: string;
  /** Where it is defined (the component a $ref names, or the listed item itself). */
  at: string;
}

function parameters(side: Side): Map<string, Parameter> {
  const out = new Map<string, Parameter>();
  for (const [list, at] of [
    [side.pathItem.parameters, ptr(side.pathAt, 'parameters')],
    [side.op.parameters, ptr(side.at, 'parameters')],
  ] as const) {
    if (!Array.isArray(list)) continue;
    list.forEach((raw, i) => {
      const listed = ptr(at, i);
      const found = side.doc.deref(raw, listed);
      out.set(paramKey(found.node), { param: found.node, listed, at: found.at });
    });
  }
  return out;
}

/** The schema of a parameter or header (`schema`, or the first of `content`), and where it is. */
function paramSchema(doc: Document, param: JsonObject, at: string): { schema: Json | undefined; at: string } {
  if (param.schema !== undefined) return { schema: param.schema, at: ptr(at, 'schema') };
  const content = doc.deref(param.content, ptr(at, 'content'));
  const [type, first] = Object.entries(content.node)[0] ?? [];
  return { schema: isObject(first) ? first.schema : undefined, at: type ? ptr(content.at, type, 'schema') : at };
}

const flatParam = (doc: Document, param: JsonObject, at: string): Flat => {
  const found = paramSchema(doc, param, at);
  return flatten(doc, found.schema, found.at);
};

/** The client's side: parameters and request bodies are written by the caller (API) or by us (webhooks). */
function compareParameters(a: Side, b: Side, flow: Flow, loc: string, out: Collector): void {
  const before = parameters(a);
  const after = parameters(b);
  for (const [key, { param, listed, at }] of before) {
    const name = `${loc} ${param.in}.${param.name}`;
    const next = after.get(key);
    if (!next) {
      // A caller still sending it is refused (unknown parameters are 400); a receiver reading it loses it.
      const where = { after: Array.isArray(b.op.parameters) ? ptr(b.at, 'parameters') : b.at, before: listed };
      out.add(true, name, 'parameter-removed', param.required === true ? 'was required' : 'was optional', where, param.deprecated === true);
      continue;
    }
    const wasRequired = param.required === true;
    const isRequired = next.param.required === true;
    if (wasRequired !== isRequired) {
      const where = clean({ after: ptr(next.at, 'required'), before: ptr(at, 'required') });
      out.effect(
        flow,
        isRequired ? 'narrower' : 'wider',
        name,
        isRequired ? 'parameter-became-required' : 'parameter-became-optional',
        '',
        where,
      );
    }
    if (param.deprecated !== true && next.param.deprecated === true)
      out.add(false, name, 'parameter-deprecated', '', { after: ptr(next.at, 'deprecated') });
    for (const key of ['style', 'explode'] as const) {
      if (!sameJson(param[key], next.param[key]))
        out.add(
          true,
          name,
          `parameter-${key}-changed`,
          `${show(param[key])} -> ${show(next.param[key])}`,
          clean({ after: ptr(next.at, key) }),
        );
    }
    compareSchemas(flatParam(a.doc, param, at), flatParam(b.doc, next.param, next.at), flow, name, out);
  }
  for (const [key, { param, listed }] of after) {
    if (before.has(key)) continue;
    const name = `${loc} ${param.in}.${param.name}`;
    if (param.required === true) out.effect(flow, 'narrower', name, 'required-parameter-added', '', { after: listed });
    else out.add(false, name, 'parameter-added', 'optional', { after: listed });
  }
}

interface Media {
  type: string;
  schema: Json | undefined;
  at: string;
}

/** Media types of a `content` map, keyed by lower-cased type. */
function mediaTypes(doc: Document, content: Json | undefined, at: string): Map<string, Media> {
  const out = new Map<string, Media>();
  const found = doc.deref(content, at);
  for (const [type, media] of Object.entries(found.node)) {
    out.set(type.toLowerCase(), { type, schema: isObject(media) ? media.schema : undefined, at: ptr(found.at, type) });
  }
  return out;
}

const bodyLabel = (prefix: string, type: string): string => (type.toLowerCase() === 'application/json' ? prefix : `${prefix}(${type})`);

interface ContentSide {
  doc: Document;
  content: Json | undefined;
  /** Where the `content` map is (or would be). */
  at: string;
  /** Its parent, for a media type that is gone. */
  parent: string;
}

function compareContent(a: ContentSide, b: ContentSide, flow: Flow, prefix: string, out: Collector): void {
  const was = mediaTypes(a.doc, a.content, a.at);
  const is = mediaTypes(b.doc, b.content, b.at);
  for (const [key, media] of was) {
    const next = is.get(key);
    const loc = bodyLabel(prefix, media.type);
    if (!next) out.add(true, loc, 'media-type-removed', media.type, { after: b.parent, before: media.at });
    else
      compareSchemas(
        flatten(a.doc, media.schema, ptr(media.at, 'schema')),
        flatten(b.doc, next.schema, ptr(next.at, 'schema')),
        flow,
        loc,
        out,
      );
  }
  for (const [key, media] of is) {
    if (!was.has(key)) out.add(false, bodyLabel(prefix, media.type), 'media-type-added', media.type, { after: media.at });
  }
}

function compareRequestBody(a: Side, b: Side, flow: Flow, loc: string, out: Collector): void {
  const before = a.doc.deref(a.op.requestBody, ptr(a.at, 'requestBody'));
  const after = b.doc.deref(b.op.requestBody, ptr(b.at, 'requestBody'));
  const had = a.op.requestBody !== undefined;
  const has = b.op.requestBody !== undefined;
  const prefix = `${loc} ${flow === 'out' ? 'payload' : 'request body'}`;
  if (had && !has) return out.add(true, prefix, 'request-body-removed', '', { after: b.at, before: before.at });
  if (!had && has) {
    if (after.node.required === true) out.effect(flow, 'narrower', prefix, 'required-request-body-added', '', { after: after.at });
    else out.add(false, prefix, 'request-body-added', 'optional', { after: after.at });
    return;
  }
  if (!had) return;
  const required = { after: ptr(after.at, 'required'), before: ptr(before.at, 'required') };
  if (before.node.required !== true && after.node.required === true)
    out.effect(flow, 'narrower', prefix, 'request-body-became-required', '', required);
  if (before.node.required === true && after.node.required !== true)
    out.effect(flow, 'wider', prefix, 'request-body-became-optional', '', { ...required, after: after.at });
  compareContent(
    { doc: a.doc, content: before.node.content, at: ptr(before.at, 'content'), parent: before.at },
    { doc: b.doc, content: after.node.content, at: ptr(after.at, 'content'), parent: after.at },
    flow,
    prefix,
    out,
  );
}

const isSuccess = (status: string): boolean => /^2/.test(status) || status === 'default';

/** Responses are written by the server (API) or by the receiver (webhooks): the opposite flow. */
function compareResponses(a: Side, b: Side, flow: Flow, loc: string, out: Collector): void {
  const before = isObject(a.op.responses) ? a.op.responses : {};
  const after = isObject(b.op.responses) ? b.op.responses : {};
  for (const status of Object.keys(before)) {
    const name = `${loc} response ${status}`;
    if (!(status in after)) {
      const where = { after: ptr(b.at, 'responses'), before: ptr(a.at, 'responses', status) };
      out.add(isSuccess(status), name, 'response-removed', isSuccess(status) ? 'a success status' : 'an error status', where);
      continue;
    }
    const was = a.doc.deref(before[status], ptr(a.at, 'responses', status));
    const is = b.doc.deref(after[status], ptr(b.at, 'responses', status));
    compareHeaders({ doc: a.doc, ...was }, { doc: b.doc, ...is }, flow, name, out);
    compareContent(
      { doc: a.doc, content: was.node.content, at: ptr(was.at, 'content'), parent: was.at },
      { doc: b.doc, content: is.node.content, at: ptr(is.at, 'content'), parent: is.at },
      flow,
      `${name} body`,
      out,
    );
  }
  for (const status of Object.keys(after)) {
    if (!(status in before)) out.add(false, `${loc} response ${status}`, 'response-added', '', { after: ptr(b.at, 'responses', status) });
  }
}

interface Header {
  name: string;
  header: JsonObject;
  at: string;
  listed: string;
}

function compareHeaders(a: { doc: Document } & Located, b: { doc: Document } & Located, flow: Flow, loc: string, out: Collector): void {
  const lower = (side: { doc: Document } & Located) => {
    const map = new Map<string, Header>();
    const headers = side.doc.deref(side.node.headers, ptr(side.at, 'headers'));
    for (const [name, raw] of Object.entries(headers.node)) {
      const listed = ptr(headers.at, name);
      const found = side.doc.deref(raw, listed);
      map.set(name.toLowerCase(), { name, header: found.node, at: found.at, listed });
    }
    return map;
  };
  const was = lower(a);
  const is = lower(b);
  for (const [key, { name, header, at, listed }] of was) {
    const next = is.get(key);
    const where = `${loc} header.${name}`;
    if (!next) {
      out.add(flow === 'out', where, 'header-removed', '', { after: b.at, before: listed });
      continue;
    }
    const required = { after: ptr(next.at, 'required'), before: ptr(at, 'required') };
    if (header.required === true && next.header.required !== true)
      out.effect(flow, 'wider', where, 'header-became-optional', '', { ...required, after: next.at });
    if (header.required !== true && next.header.required === true)
      out.effect(flow, 'narrower', where, 'header-became-required', '', required);
    compareSchemas(flatParam(a.doc, header, at), flatParam(b.doc, next.header, next.at), flow, where, out);
  }
  for (const [key, { name, header, listed }] of is) {
    if (was.has(key)) continue;
    const required = header.required === true;
    if (flow === 'in' && required) out.add(true, `${loc} header.${name}`, 'required-header-added', '', { after: listed });
    else out.add(false, `${loc} header.${name}`, 'header-added', '', { after: listed });
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
  const where = (side: Side) => (side.op.security !== undefined ? ptr(side.at, 'security') : '#/security');
  const place = { after: where(b), before: where(a) };
  if (!before && after) return out.add(true, loc, 'security-added', after.join(', '), place);
  if (before && !after) return out.add(false, loc, 'security-removed', before.join(', '), place);
  for (const scope of after ?? []) if (!before?.includes(scope)) out.add(true, loc, 'security-requirement-added', scope, place);
  for (const scope of before ?? []) if (!after?.includes(scope)) out.add(false, loc, 'security-requirement-removed', scope, place);
}

function compareOperation(a: Side, b: Side, webhook: boolean, loc: string, out: Collector): void {
  // A call's parameters and body are the client's to write; a webhook's are ours.
  const flow: Flow = webhook ? 'out' : 'in';
  const back: Flow = webhook ? 'in' : 'out';
  if (!webhook) compareSecurity(a, b, loc, out);
  if (a.op.deprecated !== true && b.op.deprecated === true)
    out.add(false, loc, 'operation-deprecated', '', { after: ptr(b.at, 'deprecated') });
  compareParameters(a, b, flow, loc, out);
  compareRequestBody(a, b, flow, loc, out);
  compareResponses(a, b, back, loc, out);
}

/** Every operation of a path item (or a webhook) is marked deprecated. */
const allDeprecated = (item: JsonObject): boolean => {
  const ops = METHODS.map((method) => item[method]).filter(isObject);
  return ops.length > 0 && ops.every((op) => op.deprecated === true);
};

function comparePathItems(before: Document, after: Document, section: 'paths' | 'webhooks', out: Collector): void {
  const webhook = section === 'webhooks';
  const items = (doc: Document) => {
    const map = new Map<string, { name: string; item: JsonObject; at: string }>();
    const list = isObject(doc.root[section]) ? doc.root[section] : {};
    for (const [name, raw] of Object.entries(list)) {
      const found = doc.deref(raw, ptr(`#/${section}`, name));
      map.set(webhook ? name : pathKey(name), { name, item: found.node, at: found.at });
    }
    return map;
  };
  const label = (name: string, method: string) =>
    webhook ? `webhook ${name}${method === 'post' ? '' : ` ${method.toUpperCase()}`}` : `${method.toUpperCase()} ${name}`;
  const was = items(before);
  const is = items(after);
  for (const [key, { name, item, at }] of was) {
    const next = is.get(key);
    if (!next) {
      const where = { after: `#/${section}`, before: at };
      out.add(true, webhook ? `webhook ${name}` : name, webhook ? 'webhook-removed' : 'path-removed', '', where, allDeprecated(item));
      continue;
    }
    for (const method of METHODS) {
      const op = item[method];
      const nextOp = next.item[method];
      if (!isObject(op)) continue;
      if (!isObject(nextOp)) {
        const where = { after: next.at, before: ptr(at, method) };
        out.add(true, label(next.name, method), webhook ? 'webhook-removed' : 'operation-removed', '', where, op.deprecated === true);
        continue;
      }
      const a = { doc: before, op, at: ptr(at, method), pathItem: item, pathAt: at };
      const b = { doc: after, op: nextOp, at: ptr(next.at, method), pathItem: next.item, pathAt: next.at };
      compareOperation(a, b, webhook, label(next.name, method), out);
    }
    for (const method of METHODS) {
      if (!isObject(item[method]) && isObject(next.item[method]))
        out.add(false, label(next.name, method), webhook ? 'webhook-added' : 'operation-added', '', { after: ptr(next.at, method) });
    }
  }
  for (const [key, { name, at }] of is) {
    if (!was.has(key)) out.add(false, webhook ? `webhook ${name}` : name, webhook ? 'webhook-added' : 'path-added', '', { after: at });
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
