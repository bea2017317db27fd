/** Wire shapes of watchlist and feed actions (reference admin §1.4, cbapi's watchlistaction/feedaction.yaml). */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

const ActionTypeCode = Type.Integer({ minimum: 0, maximum: 3, description: '0 email, 1 syslog, 2 http_post, 3 alert' });

/**
 * cbapi reads a watchlist action's watchlist id from group_id and a feed action's feed id from
 * group_id, so both carry the owner's id there; watchlist_id is the watchlist, or -1 on a feed's
 * action ("the UI uses -1").
 */
export const DetectionAction = Type.Object({
  id: Type.Integer(),
  action_type: Type.Integer(),
  action_data: Type.Union([Type.String(), Type.Null()], { description: 'free text, often JSON such as {"email_recipients":[1,2]}' }),
  watchlist_id: Type.Integer(),
  group_id: Type.Integer(),
});
export type DetectionAction = Static<typeof DetectionAction>;

/** Owner ids in the body are ignored: the path names the owner. */
export const ActionCreateBody = Type.Object({
  action_type: ActionTypeCode,
  action_data: Type.Optional(Type.Unknown({ description: 'a string, null, or JSON (stored as its text)' })),
});
export type ActionCreateBody = Static<typeof ActionCreateBody>;

export const ActionUpdateBody = Type.Partial(ActionCreateBody);
export type ActionUpdateBody = Static<typeof ActionUpdateBody>;

export const ActionParams = Type.Object({ id: IntegerId, action_id: IntegerId });
export const ActionTypeParams = Type.Object({ id: IntegerId, action_type: ActionTypeCode });
export const ActionTypeBody = Type.Object({ enabled: Type.Boolean() });

/** One row per action type: whether the owner has it on. */
export const ActionTypeState = Type.Object({
  action_type: Type.Integer(),
  type: Type.String({ description: 'email, syslog, http_post or alert' }),
  enabled: Type.Boolean(),
  action_data: Type.Union([Type.String(), Type.Null()]),
});
