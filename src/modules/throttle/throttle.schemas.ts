/**
 * Wire shapes of site throttle rules (reference admin §9.3; cbapi's throttle.yaml has id, site_id,
 * day_of_week, from, to, bytes_per_second and nothing more). The units are Vigil's reading of Cb
 * Response's site throttling ("per site, per hour, per day"): day_of_week 0 Sunday .. 6 Saturday,
 * from and to whole hours of that day (to exclusive, 24 for midnight), in the sensor's local time.
 */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

export const ThrottleRule = Type.Object({
  id: Type.Integer(),
  site_id: Type.Integer(),
  day_of_week: Type.Integer({ description: '0 Sunday .. 6 Saturday' }),
  from: Type.Integer({ description: 'First hour of the day the rule covers (0-23), sensor local time' }),
  to: Type.Integer({ description: 'Hour the rule ends (1-24, exclusive)' }),
  bytes_per_second: Type.Number({ description: 'Most the site\'s sensors each send per second meanwhile' }),
});
export type ThrottleRule = Static<typeof ThrottleRule>;

export const ThrottleParams = Type.Object({ id: IntegerId });

const Fields = {
  site_id: IntegerId,
  day_of_week: Type.Integer({ minimum: 0, maximum: 6 }),
  from: Type.Integer({ minimum: 0, maximum: 23 }),
  to: Type.Integer({ minimum: 1, maximum: 24 }),
  bytes_per_second: Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }),
};

/** cbapi sends the object it holds (id null on create); from must come before to. */
export const ThrottleCreateBody = Type.Object(Fields);
export type ThrottleCreateBody = Static<typeof ThrottleCreateBody>;

export const ThrottleUpdateBody = Type.Partial(Type.Object(Fields));
export type ThrottleUpdateBody = Static<typeof ThrottleUpdateBody>;

/** The `throttle` instruction's payload (docs/sensor-protocol.md): the whole rule list of the sensor's site. */
export interface ThrottlePayload {
  site_id: number;
  rules: Omit<ThrottleRule, 'id' | 'site_id'>[];
}
