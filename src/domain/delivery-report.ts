export const DELIVERY_REPORT_TYPES = ['summary', 'detailed', 'per_recipient_final', 'per_recipient'] as const;
export type DeliveryReportType = (typeof DELIVERY_REPORT_TYPES)[number];

export function isDeliveryReportType(value: unknown): value is DeliveryReportType {
  return typeof value === 'string' && (DELIVERY_REPORT_TYPES as readonly string[]).includes(value);
}
