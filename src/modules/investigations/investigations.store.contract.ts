/** The contract of InvestigationsStore, run against every dialect (investigations.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SqlInvestigationsStore, type NewTaggedEvent } from './investigations.store.js';

const NOW = 1_800_000_000_000;
const GUID = '00000007-0000-1004-01db-5a0e3c1f2000';

const event = (investigationId: number, overrides: Partial<NewTaggedEvent> = {}): NewTaggedEvent => ({
  investigationId, processGuid: GUID, sensorId: 7, segmentId: 1, pid: 4100, groupId: 1, eventId: 3, eventType: 'netconn',
  eventData: { domain: 'example.com' }, startMs: NOW - 1000, taggedBy: 'alice', notes: '', ...overrides,
});

export function investigationsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('holds the seeded Default Investigation', async () => {
    const store = new SqlInvestigationsStore(await fresh());
    const seeded = await store.get(1);
    assert.deepEqual({ ...seeded, startedMs: 0, updatedMs: 0 }, { id: 1, name: 'Default Investigation', notes: '', createdBy: '', startedMs: 0, updatedMs: 0 });
    assert.deepEqual((await store.list()).map((i) => i.id), [1]);
  });

  it('creates, lists by id, updates and deletes investigations', async () => {
    const store = new SqlInvestigationsStore(await fresh());
    const created = await store.create({ name: 'Case', notes: 'n', createdBy: 'alice' }, NOW);
    assert.deepEqual(created, { id: created.id, name: 'Case', notes: 'n', createdBy: 'alice', startedMs: NOW, updatedMs: NOW });
    assert.deepEqual(await store.get(created.id), created);
    assert.deepEqual((await store.list()).map((i) => i.name), ['Default Investigation', 'Case']);
    assert.deepEqual(await store.update(created.id, { notes: 'closed' }, NOW + 5), { ...created, notes: 'closed', updatedMs: NOW + 5 });
    assert.equal(await store.update(created.id + 100, { name: 'x' }, NOW), undefined);
    assert.equal(await store.delete(created.id), true);
    assert.equal(await store.delete(created.id), false);
    assert.equal(await store.get(created.id), undefined);
  });

  it('tags events, lists them by investigation and by process, and marks the investigation updated', async () => {
    const store = new SqlInvestigationsStore(await fresh());
    const other = await store.create({ name: 'Other', notes: '', createdBy: 'bob' }, NOW);
    const first = await store.tag(event(1), NOW + 10);
    assert.deepEqual(first, { ...event(1), id: first!.id, taggedMs: NOW + 10 });
    const note = await store.tag(event(other.id, { processGuid: '', pid: null, groupId: null, segmentId: 0 }), NOW + 20);
    const second = await store.tag(event(other.id, { eventType: 'filemod' }), NOW + 30);
    assert.equal(await store.tag(event(other.id + 100), NOW), undefined);
    assert.equal((await store.get(1))?.updatedMs, NOW + 10);
    assert.equal((await store.get(other.id))?.updatedMs, NOW + 30);
    assert.deepEqual(await store.taggedEventsOf(other.id), [note, second]);
    assert.deepEqual(await store.taggedEventsOn([GUID, '']), [first, second]);
    assert.deepEqual(await store.taggedEventsOn([]), []);
    assert.deepEqual(await store.taggedEventsWithPid(4100), [first, second]);
    assert.deepEqual(await store.taggedEventsWithPid(4101), []);
    assert.deepEqual(await store.taggedEvent(first!.id), first);
  });

  it('changes and removes tagged events, and drops them with their investigation', async () => {
    const store = new SqlInvestigationsStore(await fresh());
    const investigation = await store.create({ name: 'Case', notes: '', createdBy: 'alice' }, NOW);
    const tagged = (await store.tag(event(investigation.id), NOW))!;
    const changed = await store.updateTaggedEvent(tagged.id, { notes: 'dropper', eventData: { path: 'x' } }, NOW + 50);
    assert.deepEqual(changed, { ...tagged, notes: 'dropper', eventData: { path: 'x' } });
    assert.equal((await store.get(investigation.id))?.updatedMs, NOW + 50);
    assert.equal(await store.updateTaggedEvent(tagged.id + 100, { notes: 'x' }, NOW), undefined);
    assert.equal(await store.untag(tagged.id, NOW + 60), true);
    assert.equal(await store.untag(tagged.id, NOW + 70), false);
    assert.equal((await store.get(investigation.id))?.updatedMs, NOW + 60);
    const kept = (await store.tag(event(investigation.id), NOW))!;
    await store.delete(investigation.id);
    assert.equal(await store.taggedEvent(kept.id), undefined);
  });
}
