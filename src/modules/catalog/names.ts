/** The stored form of a catalog name, and the key that makes names unique case-insensitively. */
export function cleanName(name: string): string {
  return name.trim().normalize('NFC');
}

export function nameKey(name: string): string {
  return cleanName(name).toLowerCase();
}
