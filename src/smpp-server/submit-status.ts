/**
 * What the send use case's refusals mean in SMPP (policy as data, style §6): the argument a
 * ValidationError names decides the command_status of the response.
 */
import { CommandStatus } from '../carriers/smpp/pdu/index.js';
import { ValidationError, ValidationType } from '../domain/errors.js';

const STATUS_BY_ARGUMENT: Readonly<Record<string, number>> = {
  from: CommandStatus.ESME_RINVSRCADR,
  to: CommandStatus.ESME_RINVDSTADR,
  body: CommandStatus.ESME_RINVMSGLEN,
  send_at: CommandStatus.ESME_RINVSCHED,
  expires_at: CommandStatus.ESME_RINVEXPIRY,
};

/** The command_status for an error sendMessage threw; null: not a refusal (a fault of ours). */
export function statusOfRefusal(error: unknown): number | null {
  if (!(error instanceof ValidationError)) return null;
  // Not enough credit is the submit failing, not a bad address.
  if (error.detail.type === ValidationType.CreditInsufficient) return CommandStatus.ESME_RSUBMITFAIL;
  return STATUS_BY_ARGUMENT[error.detail.argument ?? ''] ?? CommandStatus.ESME_RSUBMITFAIL;
}
