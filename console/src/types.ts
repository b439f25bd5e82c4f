/** The API's response shapes the console reads (see /v1/openapi.json). */
export interface OutboundMessage {
  readonly messageID: number;
  readonly to: string[] | Record<string, string>;
  readonly from: string;
  readonly body: string;
  readonly send_at: string | null;
  readonly expires_at: string | null;
  readonly ref: string | null;
  readonly callbackURL: string | null;
  readonly paused: boolean;
  readonly created_at?: string | null;
  readonly complete_at?: string | null;
  readonly num_parts?: number;
  readonly balance_used?: number;
  readonly status?: Record<string, number>;
}

export interface Listing<T> {
  readonly data: T[];
  readonly more_results: boolean;
}

export interface InboundMessage {
  readonly messageID: number;
  readonly from: string;
  readonly to: string;
  readonly body: string;
  readonly ref: string | null;
  readonly received_at: string;
}

export interface Recipient {
  readonly msisdn: string;
  readonly status: string;
  readonly status_code: number;
  readonly status_at: string | null;
  readonly submitted_at: string | null;
  readonly sent_at: string | null;
  readonly final_at: string | null;
  readonly parts: {
    part: number;
    connector: string;
    carrier_id: string;
    state: string | null;
    state_at: string | null;
  }[];
  readonly attempts: {
    connector: string;
    started_at: string | null;
    finished_at: string | null;
    outcome: string | null;
    detail: string | null;
  }[];
}

export interface WebhookDelivery {
  readonly deliveryID: number;
  readonly webhook_id: string;
  readonly kind: 'delivery_report' | 'inbound';
  readonly messageID: number;
  readonly url: string;
  readonly state: 'pending' | 'delivered' | 'failed';
  readonly attempts: {
    attempted_at: string;
    status: number | null;
    duration_ms: number;
    error: string | null;
    response_excerpt: string | null;
  }[];
  readonly created_at: string;
  readonly next_attempt_at: string | null;
  readonly completed_at: string | null;
}

export interface OwnAccount {
  readonly accountID: number;
  readonly name: string;
  readonly timezone: string;
  readonly credits: number | null;
  readonly any_sender: boolean;
  readonly senders: string[];
  readonly numbers: { msisdn: string; ref: string | null }[];
  readonly callback_url: string | null;
  readonly inbound_url: string | null;
  readonly delivery_report: string | null;
  readonly created_at: string | null;
}

export interface AdminAccount {
  readonly accountID: number;
  readonly name: string;
  readonly timezone: string;
  readonly credits: number | null;
  readonly any_sender: boolean;
  readonly callback_url: string | null;
  readonly inbound_url: string | null;
  readonly delivery_report: string | null;
  readonly webhook_secret: string;
  readonly created_at: string;
  readonly senders?: string[];
  readonly numbers?: { numberID: number; msisdn: string; ref: string | null; inbound_url: string | null }[];
  readonly keys?: { keyID: number; prefix: string; created_at: string; revoked_at: string | null }[];
}

export interface Stats {
  readonly at: string;
  readonly counters: Record<'accepted' | 'sent' | 'delivered' | 'failed' | 'webhook_attempts', number>;
  readonly gauges: Record<
    'pending' | 'submitted' | 'awaiting_receipt' | 'webhooks_due' | 'webhook_lag_seconds',
    number
  >;
  readonly connectors: {
    name: string;
    bound: boolean;
    in_flight: number;
    throughput: number;
    submits: number;
    errors: number;
  }[];
}

// The status names and report kinds are the server's own lists, bundled in.
export { STATUSES } from '../../src/domain/status.js';
export { DELIVERY_REPORT_TYPES as DELIVERY_REPORTS } from '../../src/domain/delivery-report.js';
