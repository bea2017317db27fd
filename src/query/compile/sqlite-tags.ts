/** The detection tags as search fields on SQLite (shared-tags.ts documents them). */
import type { FieldPredicate } from '../analysis.js';
import type { Fragment } from './fragment.js';
import { binaryTagConditionIn, processTagConditionIn } from './shared-tags.js';
import { SQLITE } from './sqlite-shared.js';

/** A dynamic field of process search, as a condition on `p`. */
export function processTagCondition(predicate: FieldPredicate): Fragment {
  return processTagConditionIn(SQLITE, predicate);
}

/** A dynamic field of binary search, as a condition on the binaries row `alias`. */
export function binaryTagCondition(predicate: FieldPredicate, alias: string): Fragment {
  return binaryTagConditionIn(SQLITE, predicate, alias);
}
