/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { jpegImage as jpg, pngImage as png } from '../support/images.js';
import { decodeBase64, decodeImage, ImageRejected } from '../../src/platform/images/decode-image.js';
import { isValidNorwegianAccountNumber, isValidOrgNumber } from '../../src/business-registry/org-number.js';

describe('decodeImage', () => {
  test('reads the size of a real PNG and JPEG', () => {
    expect(decodeImage(png(120, 200))).toEqual({ format: 'png', width: 120, height: 200, bytes: expect.any(Number) });
    expect(decodeImage(jpg(300, 167))).toMatchObject({ format: 'jpeg', width: 300, height: 167 });
  });

  test('refuses a PNG whose data is broken though its header is intact', () => {
    const broken = png(100, 100);
    broken.writeUInt32BE(0xdeadbeef, broken.length - 30);
    expect(() => decodeImage(broken)).toThrow(ImageRejected);
  });

  test('refuses text, a truncated JPEG and a format not accepted', () => {
    expect(() => decodeImage(Buffer.from('hello, not an image'))).toThrow(/PNG or JPEG/);
    expect(() => decodeImage(jpg(100, 100).subarray(0, 200))).toThrow(ImageRejected);
    expect(() => decodeImage(jpg(100, 100), ['png'])).toThrow(/Must be a PNG image/);
  });

  test('base64 is strict', () => {
    expect(decodeBase64(png(1, 1).toString('base64')).length).toBeGreaterThan(8);
    expect(() => decodeBase64('data:image/png;base64,AAAA')).toThrow(ImageRejected);
    expect(() => decodeBase64('')).toThrow(ImageRejected);
    expect(() => decodeBase64('AAA A')).toThrow(ImageRejected);
  });
});

describe('Norwegian check digits', () => {
  test.each([
    ['920000002', true],
    ['920000010', true],
    ['920000061', true],
    ['920000011', false],
    ['92000000', false],
    ['92000000a', false],
  ])('organisation number %s valid: %s', (value, valid) => {
    expect(isValidOrgNumber(value)).toBe(valid);
  });

  test.each([
    ['12345678903', true],
    ['86011117947', true],
    ['12345678901', false],
    ['1234567890', false],
  ])('account number %s valid: %s', (value, valid) => {
    expect(isValidNorwegianAccountNumber(value)).toBe(valid);
  });
});
