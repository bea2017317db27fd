/** The facet tally warmed at a worker's start counts exactly what a tally built on demand counts. */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor, uploadEvents } from '../../../test/support/sensors.js';
import { SQLITE_FILE } from '../../db/open.js';
import { Endpoint } from '../../sensor/endpoint.js';
import { FACETS, type FacetField } from './process-search.plan.js';
import { FacetTally } from './process-search.tally.sqlite.js';

describe('facet tally warm-up', () => {
  let test: TestApp;
  let connection: Database.Database;
  /** A snapshot taken before the last upload. */
  let older: Database.Database;
  before(async () => {
    test = await startTestApp({ segmentMaxEvents: 5 });
    const endpoint = new Endpoint({ seed: 'tally', index: 0, startMs: Date.parse('2026-11-20T10:00:00Z') });
    const sensor = await registerSensor(test, endpoint.facts);
    for (let sequence = 1; sequence <= 3; sequence++) {
      assert.equal((await uploadEvents(test, sensor, sequence, endpoint.take(200))).statusCode, 200);
    }
    older = new Database(join(test.config.dataDir, SQLITE_FILE), { readonly: true });
    older.exec('BEGIN');
    older.prepare('SELECT count(*) FROM segments').get();
    // A process seen only through its events so far: left out of the tally until it has a name.
    const start = Date.parse('2026-11-20T11:00:00Z');
    await uploadEvents(test, sensor, 4, [{ type: 'regmod', ts: start + 5, pid: 77_777, process_start: start, action: 'first_write', path: 'hklm\\software\\x' }]);
    connection = new Database(join(test.config.dataDir, SQLITE_FILE), { readonly: true });
  });
  after(async () => {
    older.exec('COMMIT');
    older.close();
    connection.close();
    await test.close();
  });

  it('counts by every field and group as a tally built on demand does, in one pass over the processes', () => {
    const fields = Object.keys(FACETS) as FacetField[];
    const warmed = new FacetTally();
    connection.exec('BEGIN');
    try {
      const steps = [...{ [Symbol.iterator]: () => warmed.warm(connection, fields) }];
      assert.ok(steps.length >= 1);
      assert.equal(warmed.read(older, 'process_name', null), undefined, 'the warmed tally already counts past an older snapshot');
      for (const field of fields) {
        for (const groups of [null, [1], [2]]) {
          const built = new FacetTally().read(connection, field, groups);
          assert.ok(built && built.size > 0 === (groups?.[0] !== 2), `${field} ${JSON.stringify(groups)}`);
          assert.deepEqual(warmed.read(connection, field, groups), built, `${field} ${JSON.stringify(groups)}`);
        }
      }
    } finally {
      connection.exec('COMMIT');
    }
  });

  it('lets a request for a field being warmed finish the warm-up instead of building its own', () => {
    const warming = new FacetTally();
    connection.exec('BEGIN');
    try {
      const steps = warming.warm(connection, ['process_name', 'username_full']);
      assert.equal(steps.next().done, false, 'one step taken, the tallies not yet in place');
      assert.deepEqual(warming.read(connection, 'username_full', null), new FacetTally().read(connection, 'username_full', null));
      assert.equal(steps.next().done, true, 'the request finished the warm-up');
      assert.equal(warming.read(older, 'process_name', null), undefined, 'process_name was warmed with it, past the older snapshot');
    } finally {
      connection.exec('COMMIT');
    }
  });
});
