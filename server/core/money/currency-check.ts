import type { ErrorDetail } from '../errors.ts';
import { isKnownCurrency } from './money.ts';

/** The one currency check of every write: a known ISO 4217 code, else a problem at `path`. */
export function currencyProblem(code: string | undefined, path: string): ErrorDetail | undefined {
  if (code === undefined || isKnownCurrency(code)) return undefined;
  return { path, message: `currency "${code}" is not a known ISO 4217 code` };
}
