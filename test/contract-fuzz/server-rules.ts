/**
 * The rules the contract lists under "Rules checked by the server" (openapi.yaml), as the
 * messages the server answers them with. A request the contract's schemas accept may be refused
 * only for one of these; anything else is the contract and the server disagreeing.
 */
const SERVER_RULES: { rule: string; message: RegExp }[] = [
  { rule: 'a reference that is not a record of the family', message: /does not match an? \w+ of this family$/ },
  { rule: 'names unique within the family', message: /^name has already been taken$/ },
  { rule: 'a name blank once trimmed', message: /^name must not be blank$/ },
  { rule: 'trades only on accounts that support them', message: /^Account does not support trades$/ },
  {
    rule: 'an unknown security or a blank ticker',
    message: /^(Security not found|security_id or ticker is required)$/,
  },
  { rule: 'one valuation per account and date', message: /^The account already has a valuation on \d{4}-\d\d-\d\d$/ },
  {
    rule: 'numbers read exactly; a decimal string held to the bounds of a number',
    message:
      /^(\w+ must have at most \d+ decimal places|\w+ must be (at most|at least|greater than) -?\d+|qty and price must be (valid numbers|present and positive))$/,
  },
  { rule: 'a rate between two different currencies', message: /^from and to must be different currencies$/ },
  {
    rule: 'trades within what can be stored and held',
    message:
      /^(The trade total \(qty x price \+ fee\) must be at most \d+|Cannot sell more shares than held|The shares held would exceed \d+ on .+|The position would be worth more than \d+ on .+)$/,
  },
  {
    rule: 'the balance bound',
    message: /^Account '.+' would exceed the balance bound: its entries and holdings may add up to at most \d+$/,
  },
  {
    rule: "money no finer than its currency; an own rate only for another currency than the account's",
    message:
      /^(\w+ must (be a whole number: [A-Z]{3} has no minor unit|have at most \d decimal places: the minor unit of [A-Z]{3})|exchange_rate applies only to a transaction in another currency than its account's \([A-Z]{3}\))$/,
  },
  {
    rule: 'transfers: two accounts, known rates, the link rule, one transfer per transaction',
    message:
      /^(to_account_id must differ from from_account_id|to_amount must equal amount: both accounts are in [A-Z]{3}|no exchange rate from [A-Z]{3} to [A-Z]{3} on \d{4}-\d\d-\d\d|The two transactions must be on different accounts|outflow_transaction_id must name an outflow \(money out\)|inflow_transaction_id must name an inflow \(money in\)|The two transactions must be at most \d+ days apart|The two amounts must agree within 1% once converted|The transaction is already in a transfer|Only a suggested transfer can be rejected; unlink a confirmed one with DELETE)$/,
  },
  {
    rule: 'a query parameter the operation does not define',
    message: /^\S+ is not a known query parameter(; did you mean \S+\?)?$/,
  },
  { rule: 'text holding U+0000', message: /must not contain NUL characters$/ },
  {
    rule: 'an import changes state only from the states its operation names (delete: only one that wrote nothing)',
    message:
      /^(Only a (pending|complete) import can be (changed|published|reverted) \(this one is \w+\)|The CSV cannot be read with this configuration: .+|The import has no rows|The import has \d+ invalid rows?; fix the configuration or the CSV first|The import is being read; it can be (changed|deleted) once it is pending|Only an import that has written nothing can be deleted \(this one is \w+\)(; revert it first)?)$/,
  },
  {
    rule: 'a chat holds at most 1,000 messages; a retry needs an assistant message that is not pending',
    message:
      /^(This chat is full \(\d+ messages\); start a new chat to go on|No assistant message to retry|The latest reply is still being written; retry it once it has ended)$/,
  },
  {
    rule: 'deleting the signed-in user: their password and, with a second factor, a current unused code',
    message:
      /^(password is not correct|otp_code is required, the user has a second factor|otp_code is not a current, unused code of the user's second factor|The user signs in through single sign-on and has no password to confirm with)$/,
  },
  {
    rule: "a category's parent: not itself nor nested under it; a deleted category's replacement: another one",
    message:
      /^(parent_id must not be the category itself or one nested under it|replacement_id must be another category than the one deleted)$/,
  },
  {
    rule: 'an account is not deleted while one of its imports is in progress',
    message: /^The account has an import in progress \(\w+\); delete the account once it has ended$/,
  },
  {
    rule: 'a record the request refers to deleted while it ran',
    message: /^A record this request refers to was deleted while the request ran$/,
  },
];

/** Whether a 422 to a schema-valid request names only rules the contract lists as the server's own. */
export function refusalIsDocumented(status: number, messages: string[]): boolean {
  if (status !== 422) return false;
  const details = messages.length > 1 ? messages.slice(1) : messages;
  return details.every((message) => SERVER_RULES.some((rule) => rule.message.test(message)));
}
