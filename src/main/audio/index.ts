export {
  AudioDecodeError,
  analyseAudio,
  type AnalysedAudio,
  TARGET_SAMPLE_RATE,
  decodeAudio,
  ffmpegPath,
  ffprobePath,
  parseFfmpegInputInfo,
  probeAudio,
  type DecodedAudio,
  type ProbeResult,
  type SourceInfo,
} from './decode';
export { LevelMeter, dbfs, levelStats, sha256File, wavShortfallBytes, type LevelStats } from './analyse';
