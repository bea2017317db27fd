/** Listeners told after a change, for a service whose changes another part must act on. */
export class ChangeListeners {
  private readonly listeners: (() => void)[] = [];

  add(listener: () => void): void {
    this.listeners.push(listener);
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }
}
