import { pino, type Logger } from 'pino';
import type { LogLevel } from './config/config.js';

/** Structured JSON logs on stdout; secrets never reach a log line. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: { service: 'smsgw' },
    redact: { paths: ['req.headers.authorization', 'api_key', 'webhook_secret'], censor: '[redacted]' },
  });
}
