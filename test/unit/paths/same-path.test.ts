/**
 * The one path comparison (src/main/paths/same-path.ts), rule by rule: path.win32 forms
 * (drive letters, \\?\ and UNC), case folded on win32 and darwin, NFC everywhere, and on
 * Linux folded only where a probe finds the folder ignores case. Each table row is checked
 * both ways round where the relation is symmetric.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { foldCase, isEqualOrInside, pathKey, relativeInside, samePath, volumeIgnoresCase } from '../../../src/main/paths/same-path';

const win = { platform: 'win32' as const };
const mac = { platform: 'darwin' as const };
const linuxSensitive = { platform: 'linux' as const, caseInsensitive: false };
const linuxInsensitive = { platform: 'linux' as const, caseInsensitive: true };

const nfd = (s: string) => s.normalize('NFD');

describe('samePath: one place, many spellings', () => {
  // [a, b, style, expected]
  const table: [string, string, typeof win | typeof mac | typeof linuxSensitive, boolean][] = [
    // Windows: drive letter and folder case, slashes, trailing separators, long-path and UNC forms.
    ['C:\\Data\\Proj', 'c:\\data\\proj', win, true],
    ['C:\\Data\\Proj', 'C:/Data/Proj/', win, true],
    ['C:\\Data\\Proj', '\\\\?\\C:\\Data\\Proj', win, true],
    ['\\\\?\\c:\\DATA\\proj\\', 'C:\\Data\\Proj', win, true],
    ['\\\\server\\Share\\Audits', '\\\\SERVER\\share\\audits', win, true],
    ['\\\\?\\UNC\\server\\share\\audits', '\\\\server\\share\\audits', win, true],
    ['C:\\Data\\Proj', 'D:\\Data\\Proj', win, false],
    ['C:\\Data\\Proj', 'C:\\Data\\Proj2', win, false],
    ['C:\\Data\\..\\Data\\Proj', 'c:\\data\\proj', win, true],
    ['C:\\Zoë', `c:\\${nfd('zoë')}`, win, true],
    // Simple folding only: NTFS does not equate ß and SS.
    ['C:\\Straße', 'C:\\STRASSE', win, false],
    // macOS: case and NFD/NFC.
    ['/Users/zoe/Data', '/Users/zoe/data', mac, true],
    [`/Users/zoe/${nfd('Zoë')}`, '/Users/zoe/zoë', mac, true],
    ['/Users/zoe/Data', '/Users/zoe/Data2', mac, false],
    // Linux on a case-sensitive disk: NFC still, case not.
    ['/home/zoe/Data', '/home/zoe/data', linuxSensitive, false],
    [`/home/zoe/${nfd('Zoë')}`, '/home/zoe/Zoë', linuxSensitive, true],
    ['/home/zoe/data/', '/home/zoe/data', linuxSensitive, true],
    ['/home/zoe/a/../data', '/home/zoe/data', linuxSensitive, true],
    // Linux on a case-insensitive volume (found so by probing; fixed here).
    ['/mnt/usb/Data', '/mnt/usb/DATA', linuxInsensitive, true],
  ];
  for (const [a, b, style, expected] of table) {
    it(`${JSON.stringify(a)} ${expected ? '=' : '≠'} ${JSON.stringify(b)} (${style.platform}${'caseInsensitive' in style ? `, case-insensitive ${String(style.caseInsensitive)}` : ''})`, () => {
      expect(samePath(a, b, style)).toBe(expected);
      expect(samePath(b, a, style)).toBe(expected);
      expect(pathKey(a, style) === pathKey(b, style)).toBe(expected);
    });
  }
});

describe('isEqualOrInside: a folder and what it holds', () => {
  const table: [string, string, typeof win | typeof mac | typeof linuxSensitive, boolean][] = [
    // The issue's own example.
    ['/Users/zoe/data/x', '/Users/zoe/Data', mac, true],
    ['/Users/zoe/Data', '/Users/zoe/Data', mac, true],
    ['/Users/zoe/Database/x', '/Users/zoe/Data', mac, false],
    ['/Users/zoe', '/Users/zoe/Data', mac, false],
    ['c:\\data\\proj\\project.sqlite', 'C:\\Data\\Proj', win, true],
    ['\\\\?\\C:\\Data\\Proj\\a.wav', 'c:\\data', win, true],
    ['C:\\Data\\Proj\\..\\..\\Windows', 'C:\\Data', win, false],
    ['D:\\Data\\Proj', 'C:\\Data', win, false],
    ['C:\\anything', 'C:\\', win, true],
    ['\\\\srv\\share\\a\\b', '\\\\SRV\\Share', win, true],
    ['\\\\srv\\share2\\a', '\\\\srv\\share', win, false],
    ['/home/zoe/data/x', '/home/zoe/Data', linuxSensitive, false],
    ['/home/zoe/Data/x', '/home/zoe/Data', linuxSensitive, true],
    [`/home/zoe/${nfd('Zoë')}/clip.wav`, '/home/zoe/Zoë', linuxSensitive, true],
    ['/anything/below', '/', linuxSensitive, true],
    ['/mnt/usb/data/x', '/mnt/usb/Data', linuxInsensitive, true],
  ];
  for (const [child, parent, style, expected] of table) {
    it(`${JSON.stringify(child)} ${expected ? 'is' : 'is not'} in ${JSON.stringify(parent)} (${style.platform})`, () => {
      expect(isEqualOrInside(child, parent, style)).toBe(expected);
    });
  }

  it('relativeInside gives the part below the folder, in the child’s own spelling', () => {
    expect(relativeInside('C:\\Data', 'c:\\data\\Sub\\A.wav', win)).toBe('Sub\\A.wav');
    expect(relativeInside('/Users/zoe/Data', '/Users/zoe/data/x/y.wav', mac)).toBe('x/y.wav');
    expect(relativeInside('/Users/zoe/Data', '/Users/zoe/Other/y.wav', mac)).toBeNull();
    expect(relativeInside('/', '/a/b', linuxSensitive)).toBe('a/b');
  });
});

describe('foldCase: one code point for one code point', () => {
  it('folds letters whose lower case is one code point and keeps the others', () => {
    expect(foldCase('ÀÉÎÕÜ Ω ΣΑΣ')).toBe('àéîõü ω σασ');
    // U+0130 (İ) lower-cases to two code points in full mapping: kept as it is.
    expect(foldCase('İ')).toBe('İ');
    expect(foldCase('ß')).toBe('ß');
  });
});

describe('probing this computer’s folders', () => {
  const root = mkdtempSync(join(tmpdir(), 'same-path-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds an ordinary Linux folder case-sensitive, so folders differing in case stay two', () => {
    // The test machine's temporary folder is ext4 or tmpfs: case-sensitive.
    mkdirSync(join(root, 'Proj'));
    mkdirSync(join(root, 'proj'));
    writeFileSync(join(root, 'Proj', 'a.txt'), 'a');
    expect(volumeIgnoresCase(join(root, 'Proj'))).toBe(false);
    expect(samePath(join(root, 'Proj'), join(root, 'proj'), { platform: 'linux' })).toBe(false);
    expect(isEqualOrInside(join(root, 'proj', 'a.txt'), join(root, 'Proj'), { platform: 'linux' })).toBe(false);
    // A path that does not exist yet is probed through the deepest part that does.
    expect(volumeIgnoresCase(join(root, 'Proj', 'not-yet', 'x'))).toBe(false);
  });
});
