/**
 * Where the one data folder is on each platform (issue 35 item 4), with the platform and
 * the environment given (no Windows or macOS here: path.win32 and path.posix do the
 * joining), which earlier folders a first start copies from, and stored model manifests
 * read where their folder is now.
 */
import { describe, expect, it } from 'vitest';
import { defaultDataDir, earlierDataDirs, electronAppDataDir, isDefaultDataDir, userDataDir } from '../../../src/main/paths/data-folders';
import { rebaseInto } from '../../../src/main/inference/stored-manifest';

const WIN = { USERPROFILE: 'C:\\Users\\Zoë', APPDATA: 'C:\\Users\\Zoë\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\Zoë\\AppData\\Local' };

describe('the data folder on each platform', () => {
  it('Linux: data in the app user-data folder under XDG_CONFIG_HOME, or ~/.config', () => {
    expect(userDataDir({ HOME: '/home/zoe' }, 'linux')).toBe('/home/zoe/.config/Equivox');
    expect(defaultDataDir({ HOME: '/home/zoe' }, 'linux')).toBe('/home/zoe/.config/Equivox/data');
    expect(defaultDataDir({ HOME: '/home/zoe', XDG_CONFIG_HOME: '/cfg' }, 'linux')).toBe('/cfg/Equivox/data');
    // XDG_DATA_HOME was the CLI's place; it no longer decides the data folder.
    expect(defaultDataDir({ HOME: '/home/zoe', XDG_DATA_HOME: '/d' }, 'linux')).toBe('/home/zoe/.config/Equivox/data');
  });

  it('macOS: ~/Library/Application Support/Equivox/data', () => {
    expect(defaultDataDir({ HOME: '/Users/zoe' }, 'darwin')).toBe('/Users/zoe/Library/Application Support/Equivox/data');
    expect(electronAppDataDir({ HOME: '/Users/zoe' }, 'darwin')).toBe('/Users/zoe/Library/Application Support');
  });

  it('Windows: Local, not Roaming — %LOCALAPPDATA%\\Equivox\\data, or the profile\'s AppData\\Local', () => {
    expect(userDataDir(WIN, 'win32')).toBe('C:\\Users\\Zoë\\AppData\\Local\\Equivox');
    expect(defaultDataDir(WIN, 'win32')).toBe('C:\\Users\\Zoë\\AppData\\Local\\Equivox\\data');
    expect(defaultDataDir({ USERPROFILE: 'D:\\Profiles\\zoe' }, 'win32')).toBe('D:\\Profiles\\zoe\\AppData\\Local\\Equivox\\data');
    expect(defaultDataDir(WIN, 'win32')).not.toMatch(/Roaming/);
    // Electron's own appData stays Roaming: only the user-data folder is set to Local.
    expect(electronAppDataDir(WIN, 'win32')).toBe('C:\\Users\\Zoë\\AppData\\Roaming');
  });

  it('EQUIVOX_HOME overrides every platform, and is never "the default place"', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(defaultDataDir({ ...WIN, HOME: '/home/zoe', EQUIVOX_HOME: '/portable/eq' }, platform)).toBe('/portable/eq');
      expect(isDefaultDataDir('/portable/eq', { HOME: '/home/zoe', EQUIVOX_HOME: '/portable/eq' }, platform)).toBe(false);
    }
    expect(isDefaultDataDir('/home/zoe/.config/Equivox/data', { HOME: '/home/zoe' }, 'linux')).toBe(true);
    expect(isDefaultDataDir('c:\\users\\zoë\\appdata\\local\\equivox\\data\\', WIN, 'win32')).toBe(true);
    expect(isDefaultDataDir('/tmp/some-test-home', { HOME: '/home/zoe' }, 'linux')).toBe(false);
  });
});

describe('the earlier default folders a first start copies from', () => {
  it('Linux: the CLI\'s ~/.local/share/equivox (or XDG_DATA_HOME) and the app\'s ~/.config/equivox/data from source', () => {
    expect(earlierDataDirs({ HOME: '/home/zoe' }, 'linux')).toEqual(['/home/zoe/.local/share/equivox', '/home/zoe/.config/equivox/data']);
    expect(earlierDataDirs({ HOME: '/home/zoe', XDG_DATA_HOME: '/d', XDG_CONFIG_HOME: '/c' }, 'linux')).toEqual(['/d/equivox', '/c/equivox/data']);
  });

  it('macOS: the CLI\'s Application Support/Equivox; the app\'s folder is the data folder itself (the disk ignores case)', () => {
    expect(earlierDataDirs({ HOME: '/Users/zoe' }, 'darwin')).toEqual(['/Users/zoe/Library/Application Support/Equivox']);
  });

  it('Windows: the CLI\'s %APPDATA%\\Equivox and the app\'s Roaming user-data folder, once each', () => {
    expect(earlierDataDirs(WIN, 'win32')).toEqual(['C:\\Users\\Zoë\\AppData\\Roaming\\Equivox', 'C:\\Users\\Zoë\\AppData\\Roaming\\equivox\\data']);
  });
});

describe('stored model files found where the model folder is now', () => {
  const id = 'a'.repeat(64);
  it('an absolute path under an earlier data folder moves under the current model folder', () => {
    expect(rebaseInto(`/home/zoe/.local/share/equivox/models/${id}/model.onnx`, `/home/zoe/.config/Equivox/data/models/${id}`)).toBe(`/home/zoe/.config/Equivox/data/models/${id}/model.onnx`);
    expect(rebaseInto(`C:\\Users\\Zoë\\AppData\\Roaming\\Equivox\\models\\${id}\\data\\w.bin`, `/m/${id}`)).toBe(`/m/${id}/data/w.bin`);
  });

  it('a path already there, or outside any folder of the model, is left as it is', () => {
    expect(rebaseInto(`/m/${id}/vocab.json`, `/m/${id}`)).toBe(`/m/${id}/vocab.json`);
    expect(rebaseInto('/opt/equivox/resources/models/acoustic-baseline.onnx', `/m/${id}`)).toBe('/opt/equivox/resources/models/acoustic-baseline.onnx');
  });
});
