/** Wire shapes of sites (reference core §7.1; cbapi's site.yaml has id and name). */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

const SiteName = Type.String({ minLength: 1, maxLength: 256 });

export const Site = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  group_ids: Type.Array(Type.Integer(), { description: 'The sensor groups in the site that the caller may view.' }),
});
export type Site = Static<typeof Site>;

export const SiteParams = Type.Object({ id: IntegerId });

/** cbapi sends the object it holds (id null on create, group_ids on update): only name is read. */
export const SiteCreateBody = Type.Object({ name: SiteName });
export type SiteCreateBody = Static<typeof SiteCreateBody>;

export const SiteUpdateBody = Type.Partial(SiteCreateBody);
export type SiteUpdateBody = Static<typeof SiteUpdateBody>;
