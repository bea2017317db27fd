/**
 * Dashboard statistics over HTTP, counted from what real sensors sent: registrations, check-ins,
 * events and binaries through the sensor protocol, watchlist hits and alerts through the detection
 * sink, triage through the alerts API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { storedSegments } from '../../../test/support/processes.js';
import { binaryMetadata, checkin, processEvents, registerSensor, uploadBinary, uploadEvents } from '../../../test/support/sensors.js';

const HOUR_MS = 3_600_000;

describe('dashboard statistics API', () => {
  let test: TestApp;
  let labGroup: number;
  before(async () => {
    test = await startTestApp();
    const admin = as(test.adminToken);
    labGroup = (await test.app.inject({ method: 'POST', url: '/api/group', headers: admin, payload: { name: 'Dashboard lab' } })).json().id;
    const windows = await registerSensor(test, { os_type: 'windows', computer_name: 'DASH-WIN' });
    await checkin(test, windows, { is_isolating: true });
    await registerSensor(test, { os_type: 'osx', computer_name: 'DASH-MAC' });
    const linux = await registerSensor(test, { os_type: 'linux', computer_name: 'dash-lab' }, labGroup);
    const events = [1, 2, 3].flatMap((n) => processEvents(2000 + n, Date.parse('2026-11-20T10:00:00Z') + n * 1000));
    assert.equal((await uploadEvents(test, windows, 1, events)).statusCode, 200);
    assert.equal((await uploadEvents(test, linux, 1, processEvents(3000))).statusCode, 200);
    const content = Buffer.from('MZ dashboard');
    assert.equal((await uploadBinary(test, windows, binaryMetadata(content, { observed_filename: 'c:\\tools\\dash.exe' }), content)).statusCode, 200);

    // The hits below are raised at chosen times. The matcher would raise them at its own (its pass
    // over existing data follows a new watchlist within seconds), taking the process's one alert.
    await test.container.detectionMatcher.close();
    const watchlistId = (await test.app.inject({
      method: 'POST', url: '/api/v1/watchlist', headers: admin, payload: { name: 'Dash shells', search_query: 'q=process_name%3Acmd.exe' },
    })).json().id;
    await test.app.inject({ method: 'PUT', url: `/api/v1/watchlist/${watchlistId}/action_type/3`, headers: admin, payload: { enabled: true } });
    const now = Date.now();
    const hitTimes = [now - 10 * 60_000, now - 5 * HOUR_MS, now - 3 * 24 * HOUR_MS];
    const alerts: string[] = [];
    for (const [i, segment] of (await storedSegments(test, windows.id)).entries()) {
      const outcome = await test.container.services.detection.watchlistRan({ watchlistId, ranAtMs: hitTimes[i]!, segments: [segment.segmentRow] });
      alerts.push(...outcome.alerts);
    }
    const [lab] = await storedSegments(test, linux.id);
    alerts.push(...(await test.container.services.detection.watchlistRan({ watchlistId, ranAtMs: now - 60_000, segments: [lab!.segmentRow] })).alerts);
    assert.equal(alerts.length, 4);
    const resolved = await test.app.inject({ method: 'POST', url: `/api/v1/alert/${alerts[0]}`, headers: admin, payload: { status: 'Resolved' } });
    assert.equal(resolved.statusCode, 200, resolved.body);
  });
  after(() => test.close());

  const statistics = async (token: string) => {
    const response = await test.app.inject({ url: '/api/v1/dashboard/statistics', headers: as(token) });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  it('counts everything for a global admin', async () => {
    const { generated_at, ...counts } = await statistics(test.adminToken);
    assert.match(generated_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$/);
    assert.deepEqual(counts, {
      sensors: { total: 3, online: 3, offline: 0, uninstalled: 0, isolated: 1, by_os: { windows: 1, osx: 1, linux: 1 } },
      processes: { total: 4, documents: 4 },
      binaries: { total: 1, new_last_24_hours: 1 },
      alerts: { total: 4, unresolved: 3, in_progress: 0, resolved: 1, false_positive: 0 },
      watchlist_hits: { last_hour: 2, last_24_hours: 3, last_7_days: 4 },
    });
  });

  it('counts only the groups a user may view', async () => {
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: as(test.adminToken),
      payload: { name: 'Dashboard lab team', group_access: [{ group_id: labGroup, access_category: 'Viewer' }] },
    })).json();
    const viewer = await createUser(test, { username: 'dash-viewer', teams: [team.id] });
    assert.deepEqual({ ...(await statistics(viewer)), generated_at: undefined }, {
      sensors: { total: 1, online: 1, offline: 0, uninstalled: 0, isolated: 0, by_os: { windows: 0, osx: 0, linux: 1 } },
      processes: { total: 1, documents: 1 },
      binaries: { total: 0, new_last_24_hours: 0 },
      alerts: { total: 1, unresolved: 1, in_progress: 0, resolved: 0, false_positive: 0 },
      watchlist_hits: { last_hour: 1, last_24_hours: 1, last_7_days: 1 },
      generated_at: undefined,
    });
  });

  it('answers 401 without a token', async () => {
    assert.equal((await test.app.inject({ url: '/api/v1/dashboard/statistics' })).statusCode, 401);
  });
});
