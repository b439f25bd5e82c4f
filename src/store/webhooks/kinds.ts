/** What a webhook delivery is about and where it stands, as the admin API filters them. */
export const DELIVERY_KINDS = ['delivery_report', 'inbound'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
