/** How a test user's phone number may be written: 8 digits (Norwegian) or 10 to 15 with the country code, `+` and spaces allowed. */
export const TEST_USER_PHONE_PATTERN = /^[+\s]*(?:\d\s*){8}$|^[+\s]*(?:\d\s*){10,15}$/;

/** Norwegian test users may be named by their 8-digit number; stored numbers carry the country code 47. */
export function normalizePhoneNumber(input: string): string | undefined {
  const digits = input.replace(/[\s+]/g, '');
  if (/^\d{8}$/.test(digits)) return `47${digits}`;
  if (/^\d{10,15}$/.test(digits)) return digits;
  return undefined;
}
