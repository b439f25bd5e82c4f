/**
 * Sleeps until a time or a wake-up, whichever comes first: loops wait for their next due item
 * without polling, and new work (a POST, a receipt) wakes them at once.
 */
export interface Sleeper {
  sleep(ms: number): Promise<void>;
  wake(): void;
}

export function createSleeper(): Sleeper {
  let pending: { timer: NodeJS.Timeout; resolve: () => void } | null = null;
  let woken = false;
  return {
    sleep(ms) {
      if (woken) {
        woken = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(
          () => {
            pending = null;
            resolve();
          },
          Math.max(0, ms),
        );
        pending = { timer, resolve };
      });
    },
    wake() {
      if (pending) {
        clearTimeout(pending.timer);
        const { resolve } = pending;
        pending = null;
        resolve();
      } else {
        // Work arrived while the loop was busy: its next sleep returns at once.
        woken = true;
      }
    },
  };
}
