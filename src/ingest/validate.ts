/**
 * Second stage: each event is checked against the schema of its type. A bad event is rejected
 * alone, with its index and a named reason; the rest of the batch goes on.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { EVENT_SCHEMAS, type EventType, type SensorEvent } from './event.schemas.js';
import type { EventRejectionReason } from './rejection.js';

export interface EventRejection {
  index: number;
  reason: EventRejectionReason;
  detail: string;
}

const checks = new Map<string, TypeCheck<TSchema>>(
  Object.entries(EVENT_SCHEMAS).map(([type, schema]) => [type, TypeCompiler.Compile(schema)]),
);

export function validateEvents(events: readonly unknown[]): { valid: SensorEvent[]; rejected: EventRejection[] } {
  const valid: SensorEvent[] = [];
  const rejected: EventRejection[] = [];
  events.forEach((event, index) => {
    const type = (event as { type?: unknown } | null)?.type;
    const check = typeof type === 'string' ? checks.get(type) : undefined;
    if (!check) {
      rejected.push({ index, reason: 'unknown_event_type', detail: `type ${JSON.stringify(type)} is not one of ${[...checks.keys()].join(', ')}` });
    } else if (check.Check(event)) {
      valid.push(event as SensorEvent);
    } else {
      const first = check.Errors(event).First();
      rejected.push({ index, reason: 'invalid_event', detail: `${first?.path ?? ''} ${first?.message ?? 'is invalid'}`.trim() });
    }
  });
  return { valid, rejected };
}

export type { EventType };
