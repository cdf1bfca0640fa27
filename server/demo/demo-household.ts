import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, type AccountType } from '../accounts/account.entity.ts';
import { Category } from '../categories/category.entity.ts';
import type { Family } from '../families/family.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { toDecimal } from '../core/money/money.ts';
import { Security } from '../securities/security.entity.ts';
import { Tag } from '../tags/tag.entity.ts';
import { queueAccountSync } from '../accounts/account-sync.ts';
import { createTrade } from '../trades/trade.service.ts';
import { createTransfer } from '../transfers/transfer.service.ts';
import { storeRates } from '../exchange-rates/exchange-rate.service.ts';
import { storePrices } from '../security-prices/security-price.service.ts';
import { insertTransactions, type BulkTransaction } from '../transactions/transaction.bulk-insert.ts';
import { createUserWithFamily } from '../users/user.service.ts';
import type { User } from '../users/user.entity.ts';
import { randomSource } from './random-source.ts';

export const DEMO_EMAIL = 'demo@household.example';
export const DEMO_PASSWORD = 'demo-password';

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Creates the demo family: a user, five accounts, categories, merchants, tags, a few shared
 * securities and a year of everyday life up to today, whose numbers add up as a household's do:
 * salary into checking, a monthly transfer to savings and the card paid in full from checking (both
 * transfers, not income or expense), groceries, rent and coffee at believable amounts, a euro
 * account with the family's rates, and a brokerage valued at recent prices.
 */
export async function createDemoHousehold(em: EntityManager): Promise<{ user: User; family: Family }> {
  const { user, family } = await createUserWithFamily(em, {
    email: DEMO_EMAIL,
    password: DEMO_PASSWORD,
    familyName: 'The Demo Household',
    firstName: 'Dana',
    lastName: 'Demo',
    aiEnabled: true,
  });
  const account = (
    name: string,
    accountType: AccountType,
    subtype: string,
    balance: number,
    currency = family.currency,
  ) =>
    em.create(Account, {
      family,
      name,
      accountType,
      subtype,
      currency,
      balance: toDecimal(balance),
      cashBalance: toDecimal(balance),
      openingBalance: toDecimal(balance),
    });
  // Opening balances a year ago; the card starts paid off, as it is paid in full each month.
  const checking = account('Everyday Checking', 'depository', 'checking', 4250.18);
  const savings = account('High-Yield Savings', 'depository', 'savings', 18500);
  const card = account('Rewards Visa', 'credit_card', 'credit_card', 0);
  const brokerage = account('Brokerage', 'investment', 'brokerage', 12300.42);
  const euro = account('Euro Account', 'depository', 'checking', 2400, 'EUR');

  const category = (name: string, color: string, icon: string, parent: Category | null = null) =>
    em.create(Category, { family, name, color, icon, parent });
  const food = category('Food & Drink', '#eb5429', 'utensils');
  const categories = {
    salary: category('Salary', '#12b76a', 'briefcase'),
    rent: category('Rent', '#6172f3', 'house'),
    utilities: category('Utilities', '#0ba5ec', 'lightbulb'),
    groceries: category('Groceries', '#f79009', 'shopping-cart', food),
    dining: category('Restaurants', '#eb5429', 'utensils', food),
    transport: category('Transportation', '#7a5af8', 'car'),
    entertainment: category('Entertainment', '#ee46bc', 'film'),
    shopping: category('Shopping', '#fd7e14', 'shopping-bag'),
  };
  const merchant = (name: string) => em.create(Merchant, { family, name });
  const merchants = {
    employer: merchant('Acme Corp'),
    landlord: merchant('Maple Street Properties'),
    power: merchant('City Power & Light'),
    internet: merchant('FiberNet'),
    grocers: [merchant('Whole Foods'), merchant("Trader Joe's"), merchant('Corner Market')],
    dining: [
      merchant('Blue Bottle Coffee'),
      merchant('Luigi Trattoria'),
      merchant('Taqueria El Sol'),
      merchant('Sushi Go'),
    ],
    fuel: merchant('Shell'),
    rides: merchant('Uber'),
    streaming: merchant('Netflix'),
    music: merchant('Spotify'),
    shops: [merchant('Amazon'), merchant('Target'), merchant('REI')],
  };
  const tags = {
    vacation: em.create(Tag, { family, name: 'Vacation', color: '#0ba5ec' }),
    deductible: em.create(Tag, { family, name: 'Tax deductible', color: '#12b76a' }),
    reimbursable: em.create(Tag, { family, name: 'Reimbursable', color: '#f79009' }),
  };
  for (const [ticker, name] of [
    ['VTI', 'Vanguard Total Stock Market ETF'],
    ['VXUS', 'Vanguard Total International Stock ETF'],
    ['BND', 'Vanguard Total Bond Market ETF'],
  ]) {
    const existing = await em.findOne(Security, { ticker, family: null });
    if (!existing) em.create(Security, { ticker: ticker!, name: name!, exchangeOperatingMic: 'ARCX' });
  }
  await em.flush();

  const random = randomSource(20261122);
  const rows: BulkTransaction[] = [];
  const add = (
    day: Date,
    amount: number,
    name: string,
    accountId: string,
    categoryId: string | null,
    merchantId: string | null,
    tagIds: string[] = [],
    notes: string | null = null,
  ) =>
    rows.push({
      familyId: family.id,
      accountId,
      date: isoDate(day),
      // Whole cents, as a bank shows them: sums (the assistant's totals) then read as money too.
      amount: toDecimal(Math.round(amount * 100) / 100),
      currency: family.currency,
      name,
      notes,
      categoryId,
      merchantId,
      tagIds,
    });

  const today = new Date();
  for (let back = 365; back >= 0; back--) {
    const day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - back));
    const dom = day.getUTCDate();
    const dow = day.getUTCDay();
    if (dom === 1 || dom === 15)
      add(day, -3125, 'Payroll deposit', checking.id, categories.salary.id, merchants.employer.id);
    if (dom === 1) add(day, 1850, 'Monthly rent', checking.id, categories.rent.id, merchants.landlord.id);
    if (dom === 5)
      add(day, random.between(70, 140), 'Electricity bill', checking.id, categories.utilities.id, merchants.power.id);
    if (dom === 8)
      add(
        day,
        65,
        'Internet service',
        checking.id,
        categories.utilities.id,
        merchants.internet.id,
        [tags.deductible.id],
        'Home office share',
      );
    if (dom === 12)
      add(day, 15.49, 'Netflix subscription', card.id, categories.entertainment.id, merchants.streaming.id);
    if (dom === 20) add(day, 11.99, 'Spotify Premium', card.id, categories.entertainment.id, merchants.music.id);
    if (dom === 10) add(day, random.between(20, 80), 'Bäckerei & Markt', euro.id, categories.groceries.id, null);
    if (dow === 6)
      add(
        day,
        random.between(60, 190),
        'Weekly groceries',
        card.id,
        categories.groceries.id,
        random.pick(merchants.grocers).id,
      );
    // Coffee most weekdays at $3-7; a meal out now and then.
    if (dow >= 1 && dow <= 5 && random.chance(0.6))
      add(day, random.between(3, 7), 'Coffee', card.id, categories.dining.id, merchants.dining[0]!.id);
    if (random.chance(0.2))
      add(
        day,
        random.between(12, 65),
        random.pick(['Lunch', 'Dinner out', 'Takeout']),
        card.id,
        categories.dining.id,
        random.pick(merchants.dining.slice(1)).id,
      );
    if (dow === 2 && random.chance(0.5))
      add(day, random.between(35, 70), 'Fuel', card.id, categories.transport.id, merchants.fuel.id);
    if (random.chance(0.08))
      add(
        day,
        random.between(12, 48),
        'Ride',
        card.id,
        categories.transport.id,
        merchants.rides.id,
        random.chance(0.3) ? [tags.reimbursable.id] : [],
      );
    if (random.chance(0.1))
      add(
        day,
        random.between(15, 260),
        'Online order',
        card.id,
        categories.shopping.id,
        random.pick(merchants.shops).id,
      );
    if (back > 150 && back < 158)
      add(
        day,
        random.between(40, 220),
        'Holiday spending',
        card.id,
        categories.entertainment.id,
        null,
        [tags.vacation.id],
        'Summer trip',
      );
  }
  await insertTransactions(em, rows);
  await moveMoney(em, family.id, rows, { checking: checking.id, savings: savings.id, card: card.id });
  await storeRates(em, family.id, euroRates(random));
  // Balances follow from the entries once the worker has synced each account.
  for (const accountId of [checking.id, savings.id, card.id, euro.id]) await queueAccountSync(em, accountId);
  // A few trades, so that holdings have something to show (each queues the brokerage's sync).
  const monthsAgo = (months: number) => {
    const date = new Date();
    date.setUTCMonth(date.getUTCMonth() - months, 15);
    return date.toISOString().slice(0, 10);
  };
  const trades: [number, 'buy' | 'sell', number, number, string][] = [
    [11, 'buy', 20, 221.5, 'VTI'],
    [9, 'buy', 15, 98.2, 'BND'],
    [7, 'buy', 10, 234.1, 'VTI'],
    [4, 'sell', 5, 248.75, 'VTI'],
    [2, 'buy', 8, 101.3, 'BND'],
  ];
  for (const [months, type, qty, price, ticker] of trades) {
    await createTrade(em, family.id, {
      account_id: brokerage.id,
      date: monthsAgo(months),
      type,
      qty,
      price,
      ticker,
      fee: 1,
    });
  }
  // Recent closing prices, so the brokerage's balance counts its holdings at market value.
  await storePrices(
    em,
    family.id,
    [0, 7, 14].flatMap((back) =>
      (
        [
          ['VTI', 268.4],
          ['BND', 99.85],
        ] as const
      ).map(([ticker, price]) => ({
        ticker,
        date: daysAgo(back),
        price: (price - back / 10).toFixed(2),
        currency: 'USD',
      })),
    ),
  );
  return { user, family };
}

function daysAgo(days: number): string {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() - days);
  return isoDate(date);
}

/**
 * The month's moves between own accounts, as transfers: $500 to savings on the 28th, and on the 3rd
 * the card's spending of the month before paid in full from checking.
 */
async function moveMoney(
  em: EntityManager,
  familyId: string,
  rows: readonly BulkTransaction[],
  accounts: { checking: string; savings: string; card: string },
) {
  const owed = new Map<string, number>();
  for (const row of rows) {
    if (row.accountId !== accounts.card) continue;
    const month = row.date.slice(0, 7);
    owed.set(month, (owed.get(month) ?? 0) + Math.round(Number(row.amount) * 100));
  }
  const today = isoDate(new Date());
  for (let back = 12; back >= 0; back--) {
    const date = new Date();
    date.setUTCDate(1);
    date.setUTCMonth(date.getUTCMonth() - back);
    const month = isoDate(date).slice(0, 7);
    const savingsDay = `${month}-28`;
    if (savingsDay <= today && savingsDay > rows[0]!.date) {
      await createTransfer(em, familyId, {
        from_account_id: accounts.checking,
        to_account_id: accounts.savings,
        amount: 500,
        date: savingsDay,
        notes: 'Automatic monthly transfer',
      });
    }
    const previous = new Date(date);
    previous.setUTCMonth(previous.getUTCMonth() - 1);
    const statement = owed.get(isoDate(previous).slice(0, 7));
    const paymentDay = `${month}-03`;
    if (statement && paymentDay <= today) {
      await createTransfer(em, familyId, {
        from_account_id: accounts.checking,
        to_account_id: accounts.card,
        amount: statement / 100,
        date: paymentDay,
        notes: 'Statement paid in full',
      });
    }
  }
}

/** The family's EUR -> USD rate every weekday of the past year: a gentle random walk around 1.08. */
function euroRates(random: ReturnType<typeof randomSource>) {
  const rates = [];
  let rate = 1.08;
  for (let back = 370; back >= 0; back--) {
    const date = new Date();
    date.setUTCDate(date.getUTCDate() - back);
    if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
    rate = Math.min(1.16, Math.max(1.01, rate + random.between(-0.004, 0.004)));
    rates.push({ from: 'EUR' as const, to: 'USD' as const, date: isoDate(date), rate: rate.toFixed(4) });
  }
  return rates;
}
