import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { forEachDialect } from '../../../test/support/dialects.js';
import { testSecretBox } from '../../../test/support/secrets.js';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import { feedsStoreContract } from './feeds.store.contract.js';
import { SqlFeedsStore } from './feeds.store.js';

forEachDialect(feedsStoreContract);

describe('feed secrets written in plain text before migration 14', () => {
  it('are sealed at the next start and read back as they were', async () => {
    const dir = tempDir();
    const db = SqliteDatabase.open(join(dir, 'vigil.db'));
    try {
      await migrate(db, sqliteMigrations.filter((m) => m.version < 14));
      await db.run(
        `INSERT INTO feeds (name, display_name, feed_url, summary, tech_data, provider_url, icon, icon_small, category_tokens,
           enabled, username, password, ssl_client_key, manually_added, created_ms)
         VALUES ('old', 'Old', 'http://127.0.0.1/f', '', '', '', '', '', '[]', 1, 'u', 'legacy-pass', 'legacy-key', 1, 1)`,
      );
      await migrate(db, sqliteMigrations);
      const feeds = new SqlFeedsStore(db, testSecretBox());
      assert.equal(await feeds.sealPlaintext(), 1);
      assert.equal(await feeds.sealPlaintext(), 0, 'once');
      const [feed] = await feeds.list();
      assert.deepEqual([feed?.username, feed?.password, feed?.sslClientKey], ['u', 'legacy-pass', 'legacy-key']);
      assert.ok(!JSON.stringify(await db.all('SELECT * FROM feeds')).includes('legacy-'));
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
