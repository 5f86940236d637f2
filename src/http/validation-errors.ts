import type { ErrorObject } from 'ajv';

/**
 * Turns Ajv errors of openapi-backend's request validation into one `detail` sentence that
 * names every failing field: `query.limit: must be <= 500; body.start: is required`.
 */
export function describeValidationErrors(errors: readonly ErrorObject[] & { omitted?: number }): string {
  const parts = new Set<string>();
  for (const error of errors) {
    // allOf/oneOf/anyOf wrappers repeat what their branches already said.
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf' || error.keyword === 'if') continue;
    const field = fieldName(error);
    parts.add(`${field}: ${message(error)}`);
  }
  if (parts.size === 0) return 'The request does not match the contract.';
  const more = errors.omitted ? `; and ${errors.omitted} more error${errors.omitted === 1 ? '' : 's'} not listed` : '';
  return `${[...parts].join('; ')}${more}`;
}

function fieldName(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') segments.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') segments.push(params.additionalProperty);
  if (error.keyword === 'unevaluatedProperties' && typeof params.unevaluatedProperty === 'string')
    segments.push(params.unevaluatedProperty);
  if (segments[0] === 'requestBody') segments[0] = 'body';
  if (segments[0] === 'params') segments[0] = 'path';
  if (segments.length === 0) return 'request';
  return segments.reduce(
    (name, segment) => (/^\d+$/.test(segment) ? `${name}[${segment}]` : name === '' ? segment : `${name}.${segment}`),
    '',
  );
}

function message(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return error.instancePath.startsWith('/query') ? 'is not a parameter of this route' : 'is not a field of this body';
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'parse':
      return `is not valid JSON (${error.message ?? 'parse error'})`;
    case 'pattern':
    case 'format':
      return notAccepted(error);
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * A value of the wrong form: the value as sent and what to send instead (the schema's x-accepts
 * hint, else its description), with an example when the contract has one; never the pattern.
 */
function notAccepted(error: ErrorObject): string {
  const schema = (error.parentSchema ?? {}) as { 'x-accepts'?: string; description?: string; examples?: unknown[]; pattern?: string };
  // The form is right (the pattern holds) but the format fails: a day or time that does not exist.
  if (
    error.keyword === 'format' &&
    typeof error.data === 'string' &&
    schema.pattern !== undefined &&
    new RegExp(schema.pattern, 'u').test(error.data)
  )
    return `${JSON.stringify(error.data)} is not a ${String((error.params as { format?: string }).format)} that exists (the calendar has no such day or time)`;
  const what = schema['x-accepts'] ?? schema.description?.replace(/\.$/, '');
  if (what === undefined) return error.message ?? 'is invalid';
  const example = schema.examples?.[0];
  const sent = error.data === undefined ? '' : `${JSON.stringify(error.data)} is not accepted: `;
  return `${sent}send ${what}${example === undefined ? '' : `, e.g. ${JSON.stringify(example)}`}`;
}
