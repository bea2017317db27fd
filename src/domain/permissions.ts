/**
 * Who may do what. A global admin may do everything; anyone else gets, per sensor group, the
 * highest access any of their teams grants there (Carbon Black's team model), and "No Access"
 * where no team says anything.
 */
import { ForbiddenError } from './errors.js';

export const ACCESS_CATEGORIES = ['No Access', 'Viewer', 'Administrator'] as const;
export type AccessCategory = (typeof ACCESS_CATEGORIES)[number];

export interface GroupGrant {
  groupId: number;
  accessCategory: AccessCategory;
}

/** The authenticated caller of an API request. */
export interface Principal {
  userId: number;
  username: string;
  globalAdmin: boolean;
  /** Effective access per group id, already reduced over all of the user's teams. */
  groupAccess: ReadonlyMap<number, AccessCategory>;
}

const rank = (category: AccessCategory): number => ACCESS_CATEGORIES.indexOf(category);

/** Reduces the grants of all of a user's teams to the highest access per group. */
export function effectiveGroupAccess(grants: readonly GroupGrant[]): Map<number, AccessCategory> {
  const access = new Map<number, AccessCategory>();
  for (const { groupId, accessCategory } of grants) {
    const current = access.get(groupId);
    if (current === undefined || rank(accessCategory) > rank(current)) access.set(groupId, accessCategory);
  }
  return access;
}

export function accessToGroup(principal: Principal, groupId: number): AccessCategory {
  if (principal.globalAdmin) return 'Administrator';
  return principal.groupAccess.get(groupId) ?? 'No Access';
}

export function canViewGroup(principal: Principal, groupId: number): boolean {
  return rank(accessToGroup(principal, groupId)) >= rank('Viewer');
}

export function canAdministerGroup(principal: Principal, groupId: number): boolean {
  return accessToGroup(principal, groupId) === 'Administrator';
}

export function requireGlobalAdmin(principal: Principal, action: string): void {
  if (!principal.globalAdmin) throw new ForbiddenError(`Only a global administrator may ${action}`);
}

/** The caller themself, or a global admin acting for them. */
export function requireSelfOrGlobalAdmin(principal: Principal, username: string, action: string): void {
  if (!principal.globalAdmin && principal.username !== username) {
    throw new ForbiddenError(`Only ${username} or a global administrator may ${action}`);
  }
}
