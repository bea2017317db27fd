/**
 * Who may hold an ingest key, and what a key is worth. A group's administrators create, list and
 * revoke its keys; a key lets a shipper send Sysmon events into that group and nothing else (the
 * ingest routes accept only keys, and the API only user tokens: src/http/auth.ts).
 */
import { randomBytes } from 'node:crypto';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../domain/errors.js';
import { canAdministerGroup, type Principal } from '../../domain/permissions.js';
import type { CreatedIngestKey, IngestKey, IngestKeyCreateBody } from './ingest-keys.schemas.js';
import type { IngestKeyIdentity } from '../../domain/ingest-key.js';
import type { IngestKeyRecord, IngestKeysStore } from './ingest-keys.store.js';

export interface GroupLookup {
  get(id: number): Promise<unknown>;
}

/** Keys look like this, so that one pasted in the wrong place is recognized in logs and reviews. */
const KEY_PREFIX = 'vik_';
const KEY_TEXT = /^vik_[0-9a-f]{48}$/;

export class IngestKeysService {
  constructor(
    private readonly store: IngestKeysStore,
    private readonly groups: GroupLookup,
    private readonly now: () => number = Date.now,
  ) {}

  async create(actor: Principal, groupId: number, body: IngestKeyCreateBody): Promise<CreatedIngestKey> {
    await this.administered(actor, groupId);
    const secret = KEY_PREFIX + randomBytes(24).toString('hex');
    const record = await this.store.create({ groupId, name: body.name ?? '', secret, createdBy: actor.username, createdMs: this.now() });
    return { ...toWire(record), key: secret };
  }

  async list(actor: Principal, groupId: number): Promise<IngestKey[]> {
    await this.administered(actor, groupId);
    return (await this.store.list(groupId)).map(toWire);
  }

  async revoke(actor: Principal, groupId: number, keyId: number): Promise<{ result: 'success' }> {
    await this.administered(actor, groupId);
    if (!(await this.store.revoke(groupId, keyId, this.now()))) throw new NotFoundError(`Sensor group ${groupId} has no ingest key ${keyId} in use`);
    return { result: 'success' };
  }

  /**
   * The key a shipper presented, in any of the forms shippers can send: `Bearer <key>`,
   * `ApiKey <key>` or `ApiKey base64(<id>:<key>)` (Beats' api_key), `Basic base64(<user>:<key>)`.
   */
  async authenticate(authorization: string | undefined): Promise<IngestKeyIdentity> {
    const secret = keyOf(authorization);
    const identity = secret === undefined ? undefined : await this.store.find(secret);
    if (identity === undefined) throw new UnauthorizedError('Missing, unknown or revoked ingest key');
    return identity;
  }

  private async administered(actor: Principal, groupId: number): Promise<void> {
    // Checked first, so a caller without access cannot tell which groups exist.
    if (!canAdministerGroup(actor, groupId)) throw new ForbiddenError(`No administrator access to sensor group ${groupId}`);
    if (!(await this.groups.get(groupId))) throw new NotFoundError(`No sensor group with id ${groupId}`);
  }
}

function keyOf(authorization: string | undefined): string | undefined {
  const match = authorization === undefined ? null : /^(Bearer|ApiKey|Basic)\s+(\S+)$/i.exec(authorization.trim());
  if (!match) return undefined;
  const [, scheme, credential] = match;
  if (KEY_TEXT.test(credential!)) return credential;
  if (scheme!.toLowerCase() === 'bearer') return undefined;
  const decoded = Buffer.from(credential!, 'base64').toString('utf8');
  const key = decoded.slice(decoded.indexOf(':') + 1);
  return KEY_TEXT.test(key) ? key : undefined;
}

function toWire(record: IngestKeyRecord): IngestKey {
  return {
    id: record.id,
    group_id: record.groupId,
    name: record.name,
    created_by: record.createdBy,
    created: new Date(record.createdMs).toISOString(),
    revoked: record.revokedMs === null ? null : new Date(record.revokedMs).toISOString(),
  };
}
