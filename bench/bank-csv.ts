import { CSV_CONTENT_LIMIT } from '../server/config.ts';

/** How the service reads bankCsv's text (the body members of POST /imports beside the text). */
export const BANK_CSV_CONFIGURATION = {
  col_sep: ';',
  date_format: '%d.%m.%Y',
  number_format: '1.234,56',
  date_col_label: 'Buchungstag',
  amount_col_label: 'Betrag',
  name_col_label: 'Verwendungszweck',
  category_col_label: 'Kategorie',
  tags_col_label: 'Tags',
};

/**
 * Rows like a German bank export (`dd.mm.yyyy` dates, amounts in `1.234,56`, names, categories,
 * tags on every fifth row): `rows` of them, or as many as fit in the 10 MiB import limit.
 */
export function bankCsv(rows = Number.POSITIVE_INFINITY): { text: string; rows: number } {
  const lines = ['Buchungstag;Betrag;Verwendungszweck;Kategorie;Tags'];
  let bytes = Buffer.byteLength(lines[0]!) + 1;
  const shops = ['REWE Markt', 'Deutsche Bahn', 'Stadtwerke', 'Apotheke am Markt', 'Buchhandlung', 'Bäckerei Krause'];
  const categories = ['Lebensmittel', 'Reisen', 'Energie', 'Gesundheit', 'Bildung', 'Essen'];
  for (let i = 0; i < rows; i++) {
    const day = String((i % 28) + 1).padStart(2, '0');
    const month = String((i % 12) + 1).padStart(2, '0');
    const euros = ((i * 7919) % 250_000) + 100;
    const amount = `${i % 9 === 0 ? '' : '-'}${(euros / 100)
      .toFixed(2)
      .replace('.', ',')
      .replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
    const line = `${day}.${month}.2025;${amount};${shops[i % shops.length]} ${i % 997};${categories[i % categories.length]};${i % 5 === 0 ? 'Steuer|Arbeit' : ''}`;
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > CSV_CONTENT_LIMIT) break;
    lines.push(line);
    bytes += size;
  }
  return { text: `${lines.join('\n')}\n`, rows: lines.length - 1 };
}

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
