/**
 * One caller per event-loop turn: each take() resolves in a turn of its own (a setImmediate), so
 * work that becomes ready together does not run back to back in one turn while timers and other
 * requests wait. Under full ingest the request thread reads several upload bodies in one poll
 * phase, each some 10 ms of parsing and preparing; run together they made the event loop's
 * longest stalls (issue 22 point 3, docs/adr/0042). A caller alone still waits for the next turn.
 */
export class EventLoopTurns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    // An immediate set while immediates run waits for the loop's next turn: timers and I/O go first.
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()!();
      this.schedule();
    });
  }
}
