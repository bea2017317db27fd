/**
 * What the server is and can do. cbapi reads `version` before anything else: 6.2 makes it use
 * the 6.x paths (v4 events, segment 0, cb.group and time filters, partitions on connect) that
 * Vigil implements. Feature switches report only what this build really serves.
 */
import type { ServerInfo } from './info.schemas.js';

/** The Carbon Black release whose API Vigil reproduces (the real server recorded in reference S7). */
export const COMPATIBLE_CB_VERSION = '6.2.0';

export interface ServerFeatures {
  liveResponse: boolean;
  banning: boolean;
}

export class InfoService {
  constructor(
    private readonly vigilVersion: string,
    private readonly features: ServerFeatures,
    /** Why event storage needs attention (the disk is filling), or null. */
    private readonly storageWarning: () => string | null = () => null,
    /** Why notifications need attention (a channel is failing), or null. */
    private readonly notificationWarning: () => Promise<string | null> = () => Promise.resolve(null),
  ) {}

  async info(): Promise<ServerInfo> {
    return {
      version: COMPATIBLE_CB_VERSION,
      version_release: `${COMPATIBLE_CB_VERSION}-vigil-${this.vigilVersion}`,
      vigil_version: this.vigilVersion,
      cblrEnabled: this.features.liveResponse,
      banningEnabled: this.features.banning,
      binaryPageSize: 10,
      processPageSize: 10,
      maxSearchResultRows: 1000,
      maxRowsSolrReportQuery: 10000,
      searchExportCount: 1000,
      binaryOrder: '',
      processOrder: '',
      liveResponseAutoAttach: this.features.liveResponse,
      timestampDeltaThreshold: 5,
      // Every group's installer package is built on request for each platform (modules/installers);
      // Carbon Black had no such key for Windows, whose installer it always shipped.
      linuxInstallerExists: true,
      osxInstallerExists: true,
      vdiGloballyEnabled: false,
      cloud_install: false,
      features: { immutable_documents: true, event_exclusions: false, thirdparty_sharing: false, ipv6_support: true },
      user_preferences: {},
      storage_warning: this.storageWarning(),
      notification_warning: await this.notificationWarning(),
    };
  }
}
