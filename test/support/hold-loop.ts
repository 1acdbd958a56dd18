/** Holds the event loop for `ms` of wall-clock time: nothing else in this process runs meanwhile. */
export function holdEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: this is the work being measured
  }
}
