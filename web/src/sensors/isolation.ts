/**
 * What a sensor's isolation honestly is: the server records the request, and only the sensor's
 * next check-in says whether it took effect.
 */
export interface IsolationFacts {
  network_isolation_enabled: boolean;
  is_isolating: boolean;
  status: string;
  supports_isolation: boolean;
}

export function isolationState(s: IsolationFacts): string {
  if (!s.supports_isolation) return 'not supported';
  if (s.network_isolation_enabled && s.is_isolating) return 'isolated (confirmed)';
  if (s.network_isolation_enabled) return s.status === 'Online' ? 'isolation requested, waiting for the sensor' : 'isolation requested, sensor offline';
  if (s.is_isolating) return s.status === 'Online' ? 'restore requested, waiting for the sensor' : 'restore requested, sensor offline';
  return 'not isolated';
}
