/** Speech recognition inside Equivox: CTC and Whisper greedy decoding, and ASR models in the store. */
export { decodeByteLevel, bytesToUnicode, unicodeToBytes } from './bytelevel';
export { calibrationByGroup, utteranceAccuracy, type CalibrationInput, type GroupCalibration } from './calibration';
export { createCtcRecognizer, ctcGreedy, ctcVocabFromJson, CTC_DEFAULTS, type CtcOptions, type CtcVocab } from './ctc';
export { borrowRecognizer, recognizerCounts, recognizerKey, type RecognizerDecode, type RecognizerLease } from './recognizer-pool';
export { ASR_VERSION, createRecognizer, detectAsrFolder, importAsrFolder, type AsrFolder, type AsrImportOptions } from './store';
export type { Recognizer, Transcript } from './types';
export { createWhisperRecognizer, WHISPER_MAX_NEW_TOKENS, whisperDetokenize, whisperIdToToken, whisperSpec, type WhisperOptions, type WhisperSpec, type WhisperTokenFiles } from './whisper';
