/**
 * Site throttle rules, and which rule list each sensor was last sent. Written once against
 * SqlDatabase; throttle.store.contract.ts is the contract every dialect must pass. A site's rules
 * go with the site.
 */
import type { SqlDatabase } from '../../db/database.js';
import { ForeignKeyViolation } from '../../db/errors.js';
import { InvalidRequestError } from '../../domain/errors.js';

export interface ThrottleRuleFields {
  siteId: number;
  dayOfWeek: number;
  fromHour: number;
  toHour: number;
  bytesPerSecond: number;
}

export interface ThrottleRuleRecord extends ThrottleRuleFields {
  id: number;
}

export interface SensorThrottleDelivery {
  /** The payload last queued for the sensor, as JSON text. */
  rules: string;
  instructionId: number;
}

export interface ThrottleStore {
  /** InvalidRequestError when the site does not exist. */
  create(rule: ThrottleRuleFields): Promise<ThrottleRuleRecord>;
  get(id: number): Promise<ThrottleRuleRecord | undefined>;
  /** Every rule, by id. */
  list(): Promise<ThrottleRuleRecord[]>;
  /** The whole rule as it should be; undefined when there is no such rule, InvalidRequestError for a missing site. */
  replace(rule: ThrottleRuleRecord): Promise<ThrottleRuleRecord | undefined>;
  /** false when there was no such rule. */
  delete(id: number): Promise<boolean>;
  /** The site a sensor group is in and that site's rules by day, hour and id; undefined for an unknown group. */
  rulesOfGroup(groupId: number): Promise<{ siteId: number; rules: ThrottleRuleRecord[] } | undefined>;
  sensorDelivery(sensorId: number): Promise<SensorThrottleDelivery | undefined>;
  saveSensorDelivery(sensorId: number, delivery: SensorThrottleDelivery): Promise<void>;
}

interface RuleRow {
  id: number;
  site_id: number;
  day_of_week: number;
  from_hour: number;
  to_hour: number;
  bytes_per_second: number;
}

export class SqlThrottleStore implements ThrottleStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(rule: ThrottleRuleFields): Promise<ThrottleRuleRecord> {
    const row = await existingSite(rule.siteId, this.db.get<RuleRow>(
      'INSERT INTO throttle_rules (site_id, day_of_week, from_hour, to_hour, bytes_per_second) VALUES (?, ?, ?, ?, ?) RETURNING *',
      [rule.siteId, rule.dayOfWeek, rule.fromHour, rule.toHour, rule.bytesPerSecond],
    ));
    return ruleRecord(row!);
  }

  async get(id: number): Promise<ThrottleRuleRecord | undefined> {
    const row = await this.db.get<RuleRow>('SELECT * FROM throttle_rules WHERE id = ?', [id]);
    return row && ruleRecord(row);
  }

  async list(): Promise<ThrottleRuleRecord[]> {
    return (await this.db.all<RuleRow>('SELECT * FROM throttle_rules ORDER BY id')).map(ruleRecord);
  }

  async replace(rule: ThrottleRuleRecord): Promise<ThrottleRuleRecord | undefined> {
    const row = await existingSite(rule.siteId, this.db.get<RuleRow>(
      `UPDATE throttle_rules SET site_id = ?, day_of_week = ?, from_hour = ?, to_hour = ?, bytes_per_second = ? WHERE id = ? RETURNING *`,
      [rule.siteId, rule.dayOfWeek, rule.fromHour, rule.toHour, rule.bytesPerSecond, rule.id],
    ));
    return row && ruleRecord(row);
  }

  async delete(id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM throttle_rules WHERE id = ?', [id])).changes > 0;
  }

  async rulesOfGroup(groupId: number): Promise<{ siteId: number; rules: ThrottleRuleRecord[] } | undefined> {
    const group = await this.db.get<{ site_id: number }>('SELECT site_id FROM sensor_groups WHERE id = ?', [groupId]);
    if (!group) return undefined;
    const rules = await this.db.all<RuleRow>(
      'SELECT * FROM throttle_rules WHERE site_id = ? ORDER BY day_of_week, from_hour, id', [group.site_id],
    );
    return { siteId: group.site_id, rules: rules.map(ruleRecord) };
  }

  async sensorDelivery(sensorId: number): Promise<SensorThrottleDelivery | undefined> {
    const row = await this.db.get<{ rules: string; instruction_id: number }>(
      'SELECT rules, instruction_id FROM sensor_throttle WHERE sensor_id = ?', [sensorId],
    );
    return row && { rules: row.rules, instructionId: row.instruction_id };
  }

  async saveSensorDelivery(sensorId: number, delivery: SensorThrottleDelivery): Promise<void> {
    await this.db.run(
      `INSERT INTO sensor_throttle (sensor_id, rules, instruction_id) VALUES (?, ?, ?)
       ON CONFLICT (sensor_id) DO UPDATE SET rules = excluded.rules, instruction_id = excluded.instruction_id`,
      [sensorId, delivery.rules, delivery.instructionId],
    );
  }
}

async function existingSite<T>(siteId: number, statement: Promise<T>): Promise<T> {
  try {
    return await statement;
  } catch (error) {
    if (error instanceof ForeignKeyViolation) throw new InvalidRequestError(`site_id: no site with id ${siteId}`);
    throw error;
  }
}

function ruleRecord(row: RuleRow): ThrottleRuleRecord {
  return {
    id: row.id, siteId: row.site_id, dayOfWeek: row.day_of_week, fromHour: row.from_hour, toHour: row.to_hour, bytesPerSecond: row.bytes_per_second,
  };
}
