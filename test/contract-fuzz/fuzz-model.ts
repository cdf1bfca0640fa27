/** Request members that name a record of the family, and the resource they name. */
const REFERENCES: Record<string, string> = {
  account_id: 'accounts',
  account_ids: 'accounts',
  category_id: 'categories',
  category_ids: 'categories',
  parent_id: 'categories',
  merchant_id: 'merchants',
  merchant_ids: 'merchants',
  tag_ids: 'tags',
  security_id: 'securities',
  from_account_id: 'accounts',
  to_account_id: 'accounts',
  outflow_transaction_id: 'transactions',
  inflow_transaction_id: 'transactions',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Records another family owns: to be seen by this family as if they did not exist. */
export type ForeignIds = Record<string, string[]>;

/**
 * What the fuzzer believes the family has: the ids the API returned, per resource, and the ids it
 * deleted. Requests are pointed at these ids so that valid requests can succeed, and the answers
 * are held to them (a live id must be found, a deleted or foreign one must not).
 */
export class FuzzModel {
  private readonly live = new Map<string, string[]>();
  private readonly gone = new Set<string>();

  constructor(private readonly foreign: ForeignIds) {}

  isLive(resource: string, id: string): boolean {
    return this.live.get(resource)?.includes(id) ?? false;
  }

  /** Learns from a successful answer: created or listed records, and deleted ones. */
  learn(resource: string, method: string, pathId: string | undefined, body: unknown): void {
    if (method === 'DELETE' && pathId) {
      this.live.set(
        resource,
        (this.live.get(resource) ?? []).filter((id) => id !== pathId),
      );
      this.gone.add(pathId);
      return;
    }
    const data = (body as { data?: unknown } | undefined)?.data;
    for (const record of Array.isArray(data) ? data : [data]) {
      const id = (record as { id?: unknown } | undefined)?.id;
      if (typeof id === 'string' && !this.isLive(resource, id)) {
        this.live.set(resource, [...(this.live.get(resource) ?? []), id]);
      }
    }
  }

  /** Records made outside the sequence (the family's starting records). */
  know(resource: string, ids: string[]): void {
    for (const id of ids) this.learn(resource, 'POST', undefined, { data: { id } });
  }

  /** Derived records (holdings) may be rebuilt by a job: known again only once listed again. */
  forget(resource: string): void {
    this.live.delete(resource);
  }

  /**
   * An id for `resource` chosen by `choice`: mostly a live one, sometimes a deleted one, another
   * family's, or one nobody has. `known` says whether the family has it.
   */
  pick(resource: string, choice: number, fallback: string): { id: string; known: boolean } {
    const live = this.live.get(resource) ?? [];
    const roll = choice % 10;
    if (roll < 7 && live.length > 0) return { id: live[Math.floor(choice / 10) % live.length]!, known: true };
    const foreign = this.foreign[resource] ?? [];
    if (roll === 7 && foreign.length > 0)
      return { id: foreign[Math.floor(choice / 10) % foreign.length]!, known: false };
    const gone = [...this.gone];
    if (roll === 8 && gone.length > 0) return { id: gone[Math.floor(choice / 10) % gone.length]!, known: false };
    return { id: fallback, known: false };
  }

  /**
   * `value` with every reference (by member name, anywhere in it) pointed at an id `pick` chose;
   * `allKnown` is false when one of them is not the family's.
   */
  pointReferences(value: unknown, choices: number[]): { value: unknown; allKnown: boolean } {
    let allKnown = true;
    let next = 0;
    const point = (resource: string, item: unknown) => {
      if (typeof item !== 'string' || !UUID.test(item)) return item;
      const picked = this.pick(resource, choices[next++ % choices.length]!, item);
      allKnown &&= picked.known;
      return picked.id;
    };
    const walk = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(walk);
      if (!node || typeof node !== 'object') return node;
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => {
          const resource = REFERENCES[key];
          if (!resource) return [key, walk(item)];
          return [key, Array.isArray(item) ? item.map((entry) => point(resource, entry)) : point(resource, item)];
        }),
      );
    };
    return { value: walk(value), allKnown };
  }
}
