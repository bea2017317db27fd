/** A sensor group's ingest key, as a shipper presented it: what Sysmon ingest acts on. */
export interface IngestKeyIdentity {
  keyId: number;
  groupId: number;
}
