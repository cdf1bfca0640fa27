/** " Did you mean 'x'?" for a suggestion, or nothing. */
export function hint(suggestion: string | undefined): string {
  return suggestion ? ` Did you mean '${suggestion}'?` : '';
}
