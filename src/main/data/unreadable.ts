/**
 * Why the system refused to read one recording, in words the auditor can act on (issue
 * 35.7): the file is there but cannot be read, and that is this clip's problem, never the
 * import's. The usual causes on laptops: the file's permissions (EACCES); macOS's privacy
 * protection, which answers EPERM for folders such as Desktop, Documents and Downloads
 * until the user allows the app; a cloud placeholder (OneDrive "Files On-Demand", iCloud
 * Drive "Optimise Mac Storage") whose content is not on this computer and cannot be
 * fetched now (EIO, ETIMEDOUT, or an error Node cannot name on Windows); another program
 * holding the file without sharing it (EBUSY, and on Windows EPERM).
 */

const FS_CODE = /^E[A-Z]+$|^UNKNOWN$/;

/** Whether `err` is the file system refusing a read (an fs error code), not a fault of Equivox. */
export function isReadRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && FS_CODE.test(code) && code !== 'ENOENT' && code !== 'ENOMEM';
}

/** The reason a file could not be read, naming the code, and what to do. */
export function unreadableReason(err: unknown, platform: NodeJS.Platform = process.platform): string {
  const code = (err as { code?: unknown } | null)?.code;
  const c = typeof code === 'string' ? code : 'error';
  switch (c) {
    case 'EACCES':
      return `the file cannot be read (permission denied, ${c}): give your user account read access to it, or copy it to a folder you own`;
    case 'EPERM':
      if (platform === 'darwin') {
        return `macOS did not let Equivox read the file (${c}): allow Equivox in System Settings › Privacy & Security › Files and Folders (or Full Disk Access), then import again`;
      }
      if (platform === 'win32') return `the file is open in another program that does not share it, or it is not yours to read (${c}): close that program or check the file's permissions, then import again`;
      return `the file cannot be read (operation not permitted, ${c}): check its permissions`;
    case 'EBUSY':
      return `the file is open in another program that does not share it (${c}): close that program, then import again`;
    case 'EIO':
    case 'ETIMEDOUT':
    case 'ENXIO':
    case 'UNKNOWN':
      return `the file could not be read (${c}): if it is in OneDrive, iCloud Drive or another synced folder, it may be a placeholder whose content is not on this computer — make it available offline ("Always keep on this device"), then import again`;
    default:
      return `the file could not be read (${c})`;
  }
}
