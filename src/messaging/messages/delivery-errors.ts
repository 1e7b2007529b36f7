/** A delivery that must not be retried (SMTP 5xx, Twilio 4xx, no sender configured). */
export class PermanentDeliveryError extends Error {}

/** A delivery worth retrying later (connection refused, SMTP 4xx, Twilio 5xx or 429). */
export class TemporaryDeliveryError extends Error {}
