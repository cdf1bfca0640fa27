/** A timestamptz as read (the ORM's driver hands raw SQL results over as text) -> ISO 8601 UTC. */
export function isoTimestamp(value: Date | string): string {
  return new Date(value).toISOString();
}
