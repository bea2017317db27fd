/**
 * Storage partitions. Event storage does not exist yet, so there are no partitions: the list is
 * an empty object, which is what cbapi needs when it connects (it looks for `isLegacy` entries;
 * a 404 here would make it refuse to connect). The partitions issue fills this in.
 */
export class PartitionsService {
  list(): Record<string, never> {
    return {};
  }
}
