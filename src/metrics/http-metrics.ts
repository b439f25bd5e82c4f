import type { Registry } from 'prom-client';
import { CounterFamily, HistogramFamily, type CounterChild, type HistogramChild } from './families.js';

/** Every HTTP response: counted by method, route pattern and status, timed by method and route. */
export interface HttpMetrics {
  /** `route` is the route's pattern (`/v1/sms/message/:messageID`), never the raw path. */
  observe(method: string, route: string, status: number, seconds: number): void;
}

/** An API answer takes about a millisecond; a slow one, a database wait. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface MethodChildren {
  readonly duration: HistogramChild;
  readonly statuses: Map<number, CounterChild>;
}

export function defineHttpMetrics(registry: Registry): HttpMetrics {
  const requests = new CounterFamily(registry, {
    name: 'smsgw_http_requests_total',
    help: 'HTTP responses by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
  });
  const durations = new HistogramFamily(
    registry,
    {
      name: 'smsgw_http_request_duration_seconds',
      help: 'Time from a request arriving to its response being sent',
      labelNames: ['method', 'route'],
    },
    DURATION_BUCKETS,
  );
  // Route → method → children: lookups by strings the router already holds, so a request
  // allocates nothing here once its route, method and status have been seen.
  const routes = new Map<string, Map<string, MethodChildren>>();
  return {
    observe(method, route, status, seconds) {
      let methods = routes.get(route);
      if (methods === undefined) {
        methods = new Map();
        routes.set(route, methods);
      }
      let children = methods.get(method);
      if (children === undefined) {
        children = { duration: durations.child(method, route), statuses: new Map() };
        methods.set(method, children);
      }
      let counter = children.statuses.get(status);
      if (counter === undefined) {
        counter = requests.child(method, route, String(status));
        children.statuses.set(status, counter);
      }
      counter.inc();
      children.duration.observe(seconds);
    },
  };
}
