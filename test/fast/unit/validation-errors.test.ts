import type { ErrorObject } from 'ajv';
import { expect } from 'chai';
import { describeValidationErrors } from '../../../src/http/validation-errors.js';

const error = (keyword: string, instancePath: string, params: Record<string, unknown> = {}, message?: string): ErrorObject =>
  ({ keyword, instancePath, schemaPath: '#/x', params, ...(message === undefined ? {} : { message }) }) as ErrorObject;

const withOmitted = (errors: ErrorObject[], omitted: number) => Object.assign(errors, { omitted });

describe('http/validation-errors describeValidationErrors', () => {
  it('names a missing query parameter query.<name>: is required', () => {
    expect(
      describeValidationErrors([error('required', '/query', { missingProperty: 'from' }, "must have required property 'from'")]),
    ).to.equal('query.from: is required');
  });

  it('names a missing body field with its whole path', () => {
    expect(describeValidationErrors([error('required', '/requestBody/lines/3', { missingProperty: 'b' })])).to.equal(
      'body.lines[3].b: is required',
    );
  });

  it('names nested body fields with dots and array indexes: body.a[3].b', () => {
    expect(describeValidationErrors([error('type', '/requestBody/a/3/b', { type: 'string' }, 'must be string')])).to.equal(
      'body.a[3].b: must be string',
    );
  });

  it('names a whole-array body item body[0]', () => {
    expect(describeValidationErrors([error('type', '/requestBody/0', {}, 'must be object')])).to.equal('body[0]: must be object');
  });

  it('names path parameters path.<name> (from /path and from /params)', () => {
    expect(describeValidationErrors([error('maxLength', '/path/id', { limit: 100 }, 'must NOT have more than 100 characters')])).to.equal(
      'path.id: must NOT have more than 100 characters',
    );
    expect(describeValidationErrors([error('minLength', '/params/id', { limit: 1 }, 'must NOT have fewer than 1 characters')])).to.equal(
      'path.id: must NOT have fewer than 1 characters',
    );
  });

  it('an unknown query parameter is not a parameter of this route', () => {
    expect(describeValidationErrors([error('additionalProperties', '/query', { additionalProperty: 'bar' })])).to.equal(
      'query.bar: is not a parameter of this route',
    );
  });

  it('an unknown body field is not a field of this body, at any depth', () => {
    expect(describeValidationErrors([error('additionalProperties', '/requestBody', { additionalProperty: 'foo' })])).to.equal(
      'body.foo: is not a field of this body',
    );
    expect(describeValidationErrors([error('additionalProperties', '/requestBody/issuer', { additionalProperty: 'x' })])).to.equal(
      'body.issuer.x: is not a field of this body',
    );
  });

  it('treats unevaluatedProperties like additionalProperties', () => {
    expect(describeValidationErrors([error('unevaluatedProperties', '/query', { unevaluatedProperty: 'q' })])).to.equal(
      'query.q: is not a parameter of this route',
    );
    expect(describeValidationErrors([error('unevaluatedProperties', '/requestBody', { unevaluatedProperty: 'z' })])).to.equal(
      'body.z: is not a field of this body',
    );
  });

  it('lists the allowed values of an enum as JSON', () => {
    expect(
      describeValidationErrors([
        error('enum', '/query/weekStart', { allowedValues: ['monday', 'sunday'] }, 'must be equal to one of the allowed values'),
      ]),
    ).to.equal('query.weekStart: must be one of "monday", "sunday"');
    expect(describeValidationErrors([error('enum', '/requestBody/n', { allowedValues: [1, null] })])).to.equal(
      'body.n: must be one of 1, null',
    );
  });

  it('says a body that is not JSON is not valid JSON, with the parser message', () => {
    expect(describeValidationErrors([error('parse', '/requestBody', {}, 'Unexpected end of JSON input')])).to.equal(
      'body: is not valid JSON (Unexpected end of JSON input)',
    );
    expect(describeValidationErrors([error('parse', '/requestBody')])).to.equal('body: is not valid JSON (parse error)');
  });

  it("uses Ajv's message for other keywords, and 'is invalid' without one", () => {
    expect(describeValidationErrors([error('maximum', '/query/limit', { limit: 500 }, 'must be <= 500')])).to.equal(
      'query.limit: must be <= 500',
    );
    expect(describeValidationErrors([error('format', '/requestBody/start')])).to.equal('body.start: is invalid');
  });

  it('a value of the wrong form: the value as sent and what to send (x-accepts, else the description), with an example; never the pattern', () => {
    const start = {
      ...error('pattern', '/requestBody/start', { pattern: '^\\d{4}…$' }, 'must match pattern "^\\d{4}…$"'),
      data: '2026-11-02T08:00:00',
      parentSchema: { 'x-accepts': 'a date-time YYYY-MM-DDThh:mm:ss with Z or an offset ±hh:mm', examples: ['2026-11-02T09:00:00+01:00'] },
    };
    const format = { ...start, keyword: 'format', message: 'must match format "date-time"' };
    // pattern and format of one field say the same: once.
    expect(describeValidationErrors([start, format])).to.equal(
      'body.start: "2026-11-02T08:00:00" is not accepted: send a date-time YYYY-MM-DDThh:mm:ss with Z or an offset ±hh:mm, e.g. "2026-11-02T09:00:00+01:00"',
    );
    const color = {
      ...start,
      instancePath: '/requestBody/color',
      data: 'red',
      parentSchema: { description: '`#rrggbb`; stored in lower case.' },
    };
    expect(describeValidationErrors([color])).to.equal('body.color: "red" is not accepted: send `#rrggbb`; stored in lower case');
  });

  it('unescapes JSON pointer segments (~1 is /, ~0 is ~)', () => {
    expect(describeValidationErrors([error('type', '/requestBody/a~1b/c~0d', {}, 'must be string')])).to.equal(
      'body.a/b.c~d: must be string',
    );
  });

  it("names an error at the root 'request'", () => {
    expect(describeValidationErrors([error('type', '', {}, 'must be object')])).to.equal('request: must be object');
  });

  it('joins several errors with "; " in order and says each sentence once', () => {
    const errors = [
      error('required', '/query', { missingProperty: 'from' }),
      error('additionalProperties', '/query', { additionalProperty: 'bar' }),
      error('required', '/query', { missingProperty: 'from' }),
      error('maximum', '/query/limit', {}, 'must be <= 500'),
    ];
    expect(describeValidationErrors(errors)).to.equal(
      'query.from: is required; query.bar: is not a parameter of this route; query.limit: must be <= 500',
    );
  });

  it('leaves out oneOf, anyOf and if wrappers', () => {
    const errors = [
      error('oneOf', '/requestBody', {}, 'must match exactly one schema in oneOf'),
      error('type', '/requestBody/a', {}, 'must be string'),
      error('anyOf', '/requestBody', {}, 'must match a schema in anyOf'),
      error('if', '/requestBody', {}, 'must match "then" schema'),
    ];
    expect(describeValidationErrors(errors)).to.equal('body.a: must be string');
  });

  it('has a general sentence when nothing else is left', () => {
    expect(describeValidationErrors([])).to.equal('The request does not match the contract.');
    expect(describeValidationErrors([error('anyOf', '/requestBody', {}, 'must match a schema in anyOf')])).to.equal(
      'The request does not match the contract.',
    );
  });

  it("adds '; and N more errors not listed' when errors.omitted is set", () => {
    const errors = withOmitted([error('type', '/requestBody/tagIds/0', {}, 'must be string')], 81);
    expect(describeValidationErrors(errors)).to.equal('body.tagIds[0]: must be string; and 81 more errors not listed');
  });

  it("says 'error' for one omitted error", () => {
    const errors = withOmitted([error('type', '/requestBody/tagIds/0', {}, 'must be string')], 1);
    expect(describeValidationErrors(errors)).to.equal('body.tagIds[0]: must be string; and 1 more error not listed');
  });

  it('adds nothing when omitted is 0 or absent', () => {
    const one = [error('type', '/requestBody/a', {}, 'must be string')];
    expect(describeValidationErrors(withOmitted([...one], 0))).to.equal('body.a: must be string');
    expect(describeValidationErrors(one)).to.equal('body.a: must be string');
  });
});
