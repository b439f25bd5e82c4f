/** A route: destinations starting with `prefix` may go to `connector`. */
export interface Route {
  readonly prefix: string;
  readonly connector: string;
  /** Lower goes first; among equal priorities the longer (more specific) prefix wins. */
  readonly priority: number;
}

/** The order routes are tried in: priority, then the longer prefix, then the connector's name. */
export function inTryOrder(routes: readonly Route[]): Route[] {
  return [...routes].sort(
    (a, b) =>
      a.priority - b.priority || b.prefix.length - a.prefix.length || a.connector.localeCompare(b.connector),
  );
}

/** The routes that may carry `to`, in the order to try them. */
export function candidates(routes: readonly Route[], to: string): Route[] {
  return inTryOrder(routes.filter((r) => to.startsWith(r.prefix)));
}
