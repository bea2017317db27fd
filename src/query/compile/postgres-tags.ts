/** The detection tags as search fields on PostgreSQL (shared-tags.ts documents them). */
import type { FieldPredicate } from '../analysis.js';
import type { Fragment } from './fragment.js';
import { POSTGRES } from './postgres-shared.js';
import { binaryTagConditionIn, processTagConditionIn } from './shared-tags.js';

/** A dynamic field of process search, as a condition on `p`. */
export function processTagCondition(predicate: FieldPredicate): Fragment {
  return processTagConditionIn(POSTGRES, predicate);
}

/** A dynamic field of binary search, as a condition on the binaries row `alias`. */
export function binaryTagCondition(predicate: FieldPredicate, alias: string): Fragment {
  return binaryTagConditionIn(POSTGRES, predicate, alias);
}
