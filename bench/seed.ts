import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, type AccountType } from '../server/accounts/account.entity.ts';
import { issueApiKey } from '../server/api-keys/api-key.service.ts';
import { Category } from '../server/categories/category.entity.ts';
import { Merchant } from '../server/merchants/merchant.entity.ts';
import { toDecimal } from '../server/core/money/money.ts';
import { Tag } from '../server/tags/tag.entity.ts';
import { insertTransactions, type BulkTransaction } from '../server/transactions/transaction.bulk-insert.ts';
import { createUserWithFamily } from '../server/users/user.service.ts';
import { randomSource } from '../server/demo/random-source.ts';

/** The word the filtered-list scenario searches for: in names, notes and merchant names of ~8% of rows. */
export const SEARCH_WORD = 'coffee';

export interface SeedResult {
  familyId: string;
  currency: string;
  key: string;
  accountIds: string[];
  rows: number;
  insertSeconds: number;
  rowsPerSecond: number;
  batchSize: number;
}

type AccountKey = 'checking' | 'joint' | 'savings' | 'visa' | 'amex';

const ACCOUNTS: [AccountKey, string, AccountType, string][] = [
  ['checking', 'Everyday Checking', 'depository', 'checking'],
  ['joint', 'Joint Checking', 'depository', 'checking'],
  ['savings', 'High-Yield Savings', 'depository', 'savings'],
  ['visa', 'Rewards Visa', 'credit_card', 'credit_card'],
  ['amex', 'Travel Amex', 'credit_card', 'credit_card'],
];

const CATEGORIES: [string, string, string, string?][] = [
  ['Income', '#12b76a', 'briefcase'],
  ['Salary', '#12b76a', 'briefcase', 'Income'],
  ['Freelance', '#16b364', 'laptop', 'Income'],
  ['Housing', '#6172f3', 'house'],
  ['Rent', '#6172f3', 'house', 'Housing'],
  ['Utilities', '#0ba5ec', 'lightbulb', 'Housing'],
  ['Internet & Phone', '#2e90fa', 'wifi', 'Housing'],
  ['Food & Drink', '#eb5429', 'utensils'],
  ['Groceries', '#f79009', 'shopping-cart', 'Food & Drink'],
  ['Restaurants', '#eb5429', 'utensils', 'Food & Drink'],
  ['Coffee Shops', '#b54708', 'coffee', 'Food & Drink'],
  ['Transportation', '#7a5af8', 'car'],
  ['Fuel', '#6938ef', 'fuel', 'Transportation'],
  ['Travel', '#0e9384', 'plane'],
  ['Entertainment', '#ee46bc', 'film'],
  ['Subscriptions', '#dd2590', 'repeat'],
  ['Shopping', '#fd7e14', 'shopping-bag'],
  ['Health', '#f04438', 'heart'],
  ['Gifts', '#d444f1', 'gift'],
  ['Home Improvement', '#667085', 'hammer'],
  ['Pets', '#875bf7', 'paw-print'],
];

const TAGS: [string, string][] = [
  ['Vacation', '#0ba5ec'],
  ['Tax deductible', '#12b76a'],
  ['Reimbursable', '#f79009'],
  ['Business', '#6172f3'],
  ['Kids', '#ee46bc'],
  ['Shared', '#7a5af8'],
  ['Recurring', '#667085'],
  ['Gift', '#d444f1'],
  ['Medical', '#f04438'],
  ['Review', '#fd7e14'],
];

/** What a kind of everyday spending looks like: category, merchants, labels, amounts, how often. */
interface Template {
  category: string | null;
  merchants: string[];
  names: string[];
  notes: string[];
  min: number;
  max: number;
  accounts: AccountKey[];
  weight: number;
  income?: boolean;
  tags?: string[];
}

const TEMPLATES: Template[] = [
  {
    category: 'Coffee Shops',
    merchants: ['Blue Bottle Coffee', 'Starbucks', "Peet's Coffee", 'Ritual Coffee Roasters', 'Corner Cafe'],
    names: ['Coffee', 'Morning coffee', 'Latte', 'Cold brew', 'Espresso and pastry'],
    notes: ['With Sam', 'Bought a bag of beans', 'Work meeting'],
    min: 3,
    max: 18,
    accounts: ['visa', 'checking'],
    weight: 6,
  },
  {
    category: 'Groceries',
    merchants: ['Whole Foods', "Trader Joe's", 'Safeway', 'Costco', 'Corner Market', 'Farmers Market'],
    names: ['Groceries', 'Weekly groceries', 'Grocery run', 'Snacks', 'Bulk shopping'],
    notes: ['Party supplies', 'Coffee beans and milk', 'Meal prep for the week', 'Split with roommate'],
    min: 12,
    max: 240,
    accounts: ['visa', 'joint'],
    weight: 14,
  },
  {
    category: 'Restaurants',
    merchants: [
      'Luigi Trattoria',
      'Taqueria El Sol',
      'Sushi Go',
      'Burger Barn',
      'Thai Orchid',
      'Pho Saigon',
      'DoorDash',
    ],
    names: ['Lunch', 'Dinner out', 'Takeout', 'Brunch', 'Team lunch', 'Date night'],
    notes: ['Birthday dinner', 'Dessert and coffee after', 'Split the bill', 'Client meeting'],
    min: 9,
    max: 160,
    accounts: ['visa', 'amex'],
    weight: 12,
    tags: ['Business', 'Shared'],
  },
  {
    category: 'Fuel',
    merchants: ['Shell', 'Chevron', 'Costco Gas'],
    names: ['Fuel', 'Gas station', 'Fill up'],
    notes: ['Road trip', 'Coffee and gas on the way'],
    min: 25,
    max: 95,
    accounts: ['visa'],
    weight: 6,
  },
  {
    category: 'Transportation',
    merchants: ['Uber', 'Lyft', 'City Transit', 'SFO Parking'],
    names: ['Ride', 'Ride home', 'Transit pass', 'Parking'],
    notes: ['Airport', 'Late meeting', 'Reimbursable by work'],
    min: 2.5,
    max: 65,
    accounts: ['visa', 'amex'],
    weight: 6,
    tags: ['Reimbursable', 'Business'],
  },
  {
    category: 'Shopping',
    merchants: ['Amazon', 'Target', 'REI', 'Best Buy', 'IKEA', 'Etsy'],
    names: ['Online order', 'Household supplies', 'Electronics', 'Furniture', 'Camping gear', 'Coffee maker'],
    notes: ['Returned part of it', 'Gift for mom', 'Replacement charger', 'For the new apartment'],
    min: 8,
    max: 480,
    accounts: ['visa', 'amex', 'checking'],
    weight: 9,
    tags: ['Gift', 'Review'],
  },
  {
    category: 'Entertainment',
    merchants: ['AMC Theatres', 'Ticketmaster', 'Steam', 'Bowling Alley'],
    names: ['Movie night', 'Concert tickets', 'Video game', 'Bowling'],
    notes: ['With the kids', 'Friends in town'],
    min: 10,
    max: 220,
    accounts: ['visa', 'amex'],
    weight: 3,
    tags: ['Kids'],
  },
  {
    category: 'Subscriptions',
    merchants: ['Netflix', 'Spotify', 'iCloud', 'New York Times', 'Gym Club'],
    names: ['Netflix subscription', 'Spotify Premium', 'Cloud storage', 'News subscription', 'Gym membership'],
    notes: [],
    min: 2.99,
    max: 55,
    accounts: ['visa'],
    weight: 4,
    tags: ['Recurring'],
  },
  {
    category: 'Health',
    merchants: ['CVS Pharmacy', 'Walgreens', 'City Dental', 'Dr. Patel Clinic'],
    names: ['Pharmacy', 'Prescription', 'Dentist', 'Doctor visit'],
    notes: ['Copay', 'Claim submitted to insurance'],
    min: 5,
    max: 350,
    accounts: ['checking', 'visa'],
    weight: 3,
    tags: ['Medical', 'Tax deductible'],
  },
  {
    category: 'Pets',
    merchants: ['Petco', 'Happy Paws Vet'],
    names: ['Pet food', 'Vet visit', 'Dog toys'],
    notes: ['Annual checkup'],
    min: 10,
    max: 300,
    accounts: ['visa'],
    weight: 2,
  },
  {
    category: 'Travel',
    merchants: ['United Airlines', 'Marriott', 'Airbnb', 'Hertz'],
    names: ['Flight', 'Hotel', 'Vacation rental', 'Car rental'],
    notes: ['Summer trip', 'Conference travel', 'Holidays with family'],
    min: 80,
    max: 1400,
    accounts: ['amex'],
    weight: 2,
    tags: ['Vacation', 'Business'],
  },
  {
    category: 'Home Improvement',
    merchants: ['Home Depot', "Lowe's", 'Ace Hardware'],
    names: ['Hardware', 'Paint', 'Garden supplies', 'Tools'],
    notes: ['Bathroom project', 'Fence repair'],
    min: 6,
    max: 600,
    accounts: ['checking', 'visa'],
    weight: 2,
  },
  {
    category: 'Gifts',
    merchants: ['Etsy', 'Amazon', 'Flower Shop'],
    names: ['Birthday gift', 'Flowers', 'Wedding gift'],
    notes: ['For Alex', 'For grandma'],
    min: 15,
    max: 250,
    accounts: ['visa'],
    weight: 1,
    tags: ['Gift'],
  },
  {
    category: 'Utilities',
    merchants: ['City Power & Light', 'Water Utility', 'PG&E'],
    names: ['Electricity bill', 'Water bill', 'Gas bill'],
    notes: ['Autopay'],
    min: 30,
    max: 220,
    accounts: ['checking'],
    weight: 1,
    tags: ['Recurring'],
  },
  {
    category: 'Internet & Phone',
    merchants: ['FiberNet', 'Mobile Co'],
    names: ['Internet service', 'Phone bill'],
    notes: ['Home office share'],
    min: 40,
    max: 120,
    accounts: ['checking'],
    weight: 1,
    tags: ['Tax deductible', 'Recurring'],
  },
  {
    category: 'Freelance',
    merchants: ['Upwork', 'Design Studio LLC'],
    names: ['Freelance payment', 'Consulting invoice'],
    notes: ['Invoice paid'],
    min: 150,
    max: 2500,
    accounts: ['checking'],
    weight: 1,
    income: true,
    tags: ['Business'],
  },
  {
    category: null,
    merchants: [],
    names: ['Transfer to savings', 'Cash withdrawal', 'Venmo payment', 'Refund'],
    notes: ['Automatic monthly transfer', 'Coffee fund', 'Paid back Jamie'],
    min: 20,
    max: 800,
    accounts: ['savings', 'checking', 'joint'],
    weight: 3,
  },
];

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * One family with 5 accounts, 21 categories, ~70 merchants, 10 tags and `count` transactions over
 * the 3 years up to today (plus salary and rent each month), written with insertTransactions in
 * batches of `batchSize`; returns a read_write API key and the insert rate.
 */
export async function seedHousehold(em: EntityManager, count = 100_000, batchSize = 5_000): Promise<SeedResult> {
  const { user, family } = await createUserWithFamily(em, {
    email: 'bench@household.example',
    password: 'bench-password-long',
    familyName: 'The Benchmark Household',
    firstName: 'Bea',
    lastName: 'Bench',
  });
  const accounts = Object.fromEntries(
    ACCOUNTS.map(([key, name, accountType, subtype]) => [
      key,
      em.create(Account, { family, name, accountType, subtype, currency: family.currency, balance: toDecimal(1000) }),
    ]),
  ) as Record<AccountKey, Account>;
  const categories = new Map<string, Category>();
  for (const [name, color, icon, parent] of CATEGORIES) {
    categories.set(
      name,
      em.create(Category, { family, name, color, icon, parent: parent ? categories.get(parent)! : null }),
    );
  }
  const merchants = new Map<string, Merchant>();
  for (const name of [...TEMPLATES.flatMap((t) => t.merchants), 'Acme Corp', 'Maple Street Properties']) {
    if (!merchants.has(name)) merchants.set(name, em.create(Merchant, { family, name }));
  }
  const tags = new Map(TAGS.map(([name, color]) => [name, em.create(Tag, { family, name, color })]));
  await em.flush();
  const { key } = await issueApiKey(em, { user, scope: 'read_write', name: 'benchmark' });

  const random = randomSource(20261122);
  const weights = TEMPLATES.reduce((sum, t) => sum + t.weight, 0);
  const pickTemplate = () => {
    let roll = random.next() * weights;
    for (const template of TEMPLATES) if ((roll -= template.weight) < 0) return template;
    return TEMPLATES[0]!;
  };
  const days = 3 * 365;
  const today = new Date();
  const dayAt = (back: number) =>
    new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - back));
  const rows: BulkTransaction[] = [];
  const row = (
    day: Date,
    amount: number,
    name: string,
    account: Account,
    category: string | null,
    merchant: string | null,
    notes: string | null,
    tagNames: string[],
  ) =>
    rows.push({
      familyId: family.id,
      accountId: account.id,
      date: isoDate(day),
      amount: toDecimal(Math.round(amount * 100) / 100),
      currency: family.currency,
      name,
      notes,
      categoryId: category ? categories.get(category)!.id : null,
      merchantId: merchant ? merchants.get(merchant)!.id : null,
      tagIds: tagNames.map((tag) => tags.get(tag)!.id),
    });
  for (let back = days; back >= 0; back--) {
    const day = dayAt(back);
    if (day.getUTCDate() === 1) {
      row(day, -4200, 'Payroll deposit', accounts.checking, 'Salary', 'Acme Corp', null, []);
      row(day, 2150, 'Monthly rent', accounts.joint, 'Rent', 'Maple Street Properties', 'Paid by transfer', [
        'Recurring',
      ]);
    }
  }
  const fixed = rows.length;
  for (let i = 0; i < count - fixed; i++) {
    const template = pickTemplate();
    const day = dayAt(Math.floor(random.next() * (days + 1)));
    const amount = random.between(template.min, template.max) * (template.income ? -1 : 1);
    const notes = template.notes.length && random.chance(0.3) ? random.pick(template.notes) : null;
    const tagNames = new Set<string>();
    if (template.tags && random.chance(0.25)) tagNames.add(random.pick(template.tags));
    if (random.chance(0.03)) tagNames.add(random.pick(TAGS)[0]);
    row(
      day,
      amount,
      random.pick(template.names),
      accounts[random.pick(template.accounts)],
      template.category,
      template.merchants.length ? random.pick(template.merchants) : null,
      notes,
      [...tagNames],
    );
  }
  // Insert in date order, as an import would, so created_at roughly follows the date.
  rows.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));

  const started = performance.now();
  for (let start = 0; start < rows.length; start += batchSize) {
    await insertTransactions(em, rows.slice(start, start + batchSize));
  }
  const insertSeconds = (performance.now() - started) / 1000;
  return {
    familyId: family.id,
    currency: family.currency,
    key,
    accountIds: ACCOUNTS.map(([k]) => accounts[k].id),
    rows: rows.length,
    insertSeconds,
    rowsPerSecond: rows.length / insertSeconds,
    batchSize,
  };
}
