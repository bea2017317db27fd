/** The event formats by API version (reference core §4.1, §4.5–4.6). */
import type { EventFormat } from './format.js';
import { v1 } from './v1.js';
import { v2 } from './v2.js';
import { v3 } from './v3.js';
import { v4 } from './v4.js';

export const EVENT_API_VERSIONS = [1, 2, 3, 4] as const;
export type EventApiVersion = (typeof EVENT_API_VERSIONS)[number];

export const EVENT_FORMATS: Record<EventApiVersion, EventFormat> = { 1: v1, 2: v2, 3: v3, 4: v4 };

export { completeLists, type CompleteLists, type EventFormat } from './format.js';
