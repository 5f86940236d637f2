import { expect } from 'chai';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { csvRecord } from '../../../src/modules/reports/export/csv.js';

/**
 * The report exports write their CSV records themselves since issue 60 (csv-stringify's work per
 * field was a fifth of an export's time): each record must be, byte for byte, what csv-stringify
 * wrote with the options the export used (CRLF records; a field quoted when it holds the
 * delimiter, a quote, or a CR or LF of its own).
 */
describe('CSV records of the report exports', () => {
  const options = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;
  const field = fc.oneof(
    fc.string(),
    fc.string({ unit: fc.constantFrom('a', ' ', ',', '"', '\r', '\n', '\t', "'", '=', 'é', '😀', ';') }),
    fc.constantFrom('', '""', '\r\n', 'a,b', ' lead', 'trail ', '=SUM(A1)'),
  );

  it('is what csv-stringify writes, for any fields', () => {
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 14 }), (fields) => {
        expect(csvRecord(fields)).to.equal(stringify([fields], options));
      }),
      { numRuns: 2000 },
    );
  });

  it('quotes a field with a comma, a quote or a line break, doubling its quotes', () => {
    expect(csvRecord(['a', 'b,c', 'say "hi"', 'x\ny', 'x\ry', ''])).to.equal('a,"b,c","say ""hi""","x\ny","x\ry",\r\n');
  });
});
