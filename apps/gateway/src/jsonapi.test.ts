import { describe, expect, it } from 'vitest';
import { listDocument } from './jsonapi.js';

describe('list links', () => {
  const page = { items: [], number: 2, size: 25, total: 80, next_cursor: 'eyJpZCI6NTB9' };

  it('carry filters, page parameters and the keyset cursor, with literal brackets', () => {
    const doc = listDocument(
      'http://gw',
      '/core/runbooks',
      { workspace_id: '7', stage: undefined },
      {},
      page,
      (x) => x,
    );
    expect(doc.links).toEqual({
      self: 'http://gw/core/runbooks?workspace_id=7&page[number]=2&page[size]=25',
      first: 'http://gw/core/runbooks?workspace_id=7&page[number]=1&page[size]=25',
      last: 'http://gw/core/runbooks?workspace_id=7&page[number]=4&page[size]=25',
      prev: 'http://gw/core/runbooks?workspace_id=7&page[number]=1&page[size]=25',
      next: 'http://gw/core/runbooks?workspace_id=7&page[after]=eyJpZCI6NTB9&page[size]=25',
    });
  });
});
