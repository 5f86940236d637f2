import { expect } from 'chai';
import { type EntryFilters, isFiltered, pickEntryFilters } from '../../../src/modules/entries/filters.js';

describe('entries/filters', () => {
  describe('pickEntryFilters', () => {
    it('picks every known filter', () => {
      const query: EntryFilters = {
        projectIds: ['p1'],
        clientIds: ['c1'],
        taskIds: ['t1'],
        tagIds: ['g1'],
        userIds: ['u1'],
        billable: true,
        search: 'meeting',
      };
      expect(pickEntryFilters(query)).to.deep.equal(query);
    });

    it('ignores every other key of the query (cursor, limit, from, to, groupBy, timeZone, unknown ones)', () => {
      const query = {
        tagIds: ['g1'],
        cursor: 'abc.def',
        limit: 10,
        from: '2026-11-02',
        to: '2026-11-03',
        groupBy: 'project',
        timeZone: 'Europe/Berlin',
        workspaceId: 'w1',
        foo: 'bar',
      } as EntryFilters;
      expect(pickEntryFilters(query)).to.deep.equal({ tagIds: ['g1'] });
    });

    it('gives an empty object for a query without filters', () => {
      expect(pickEntryFilters({ cursor: 'x', limit: 5 } as EntryFilters)).to.deep.equal({});
    });

    it('dedupes and sorts list values', () => {
      expect(pickEntryFilters({ tagIds: ['b', 'a', 'b', 'c', 'a'], projectIds: ['p2', 'p1'] })).to.deep.equal({
        projectIds: ['p1', 'p2'],
        tagIds: ['a', 'b', 'c'],
      });
    });

    it('sorts by code unit (digits before capitals before small letters; "10" before "9")', () => {
      expect(pickEntryFilters({ userIds: ['a', 'B', '9', '10'] })).to.deep.equal({ userIds: ['10', '9', 'B', 'a'] });
    });

    it('does not change the lists of the query', () => {
      const tagIds = ['b', 'a', 'b'];
      pickEntryFilters({ tagIds });
      expect(tagIds).to.deep.equal(['b', 'a', 'b']);
    });

    it('keeps billable false and search empty as given', () => {
      expect(pickEntryFilters({ billable: false, search: '' })).to.deep.equal({ billable: false, search: '' });
    });

    it('leaves out filters that are undefined', () => {
      expect(Object.keys(pickEntryFilters({ tagIds: undefined, billable: undefined, search: undefined }))).to.deep.equal([]);
    });

    it('gives the same JSON for inputs whose keys come in different orders', () => {
      const one = pickEntryFilters({ search: 'x', billable: false, userIds: ['u2', 'u1'], tagIds: ['b', 'a'], projectIds: ['p'] });
      const two = pickEntryFilters({ projectIds: ['p'], tagIds: ['a', 'b', 'a'], userIds: ['u1', 'u2'], billable: false, search: 'x' });
      expect(JSON.stringify(one)).to.equal(JSON.stringify(two));
      expect(JSON.stringify(one)).to.equal('{"projectIds":["p"],"tagIds":["a","b"],"userIds":["u1","u2"],"billable":false,"search":"x"}');
    });

    it('gives the same JSON whether unknown keys come first or not', () => {
      const one = pickEntryFilters({ cursor: 'c', clientIds: ['c1'], limit: 3 } as EntryFilters);
      const two = pickEntryFilters({ clientIds: ['c1'] });
      expect(JSON.stringify(one)).to.equal(JSON.stringify(two));
    });
  });

  describe('isFiltered', () => {
    it('is false without any filter', () => {
      expect(isFiltered({})).to.equal(false);
      expect(isFiltered({ tagIds: undefined, search: undefined })).to.equal(false);
    });

    it('is true when any filter is set, billable false and search empty included', () => {
      expect(isFiltered({ tagIds: ['a'] })).to.equal(true);
      expect(isFiltered({ billable: false })).to.equal(true);
      expect(isFiltered({ search: '' })).to.equal(true);
    });
  });
});
