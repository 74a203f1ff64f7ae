/**
 * Inference: model store, layer exposure, front ends, execution providers, the
 * embedding cache and the dataset embedding job. Audits read embeddings through
 * loadEmbeddings + aggregate.
 */
export { aggregate, cachedAudioShas, layerIndex, loadEmbeddings, providerLabel, recordProjectModel, saveEmbedding } from './cache';
export type { LayerSelector, StoredEmbedding, TemporalAggregation } from './cache';
export { CATALOGUE, downloadFile, downloadModel } from './download';
export type { CatalogueEntry, DownloadOptions, DownloadProgress } from './download';
export { datasetClips, embedDataset, embedTask } from './embed';
export type { EmbedOptions, EmbedProgress, EmbedSummary, EmbedTaskInput } from './embed';
export { createEmbedder, StatsAccumulator } from './embedder';
export type { ClipEmbedding, Embedder, ModelGraphs } from './embedder';
export { exposeLayers, findLayers } from './expose';
export { chunkRanges, normalizeWaveform, slaneyMelFilters, whisperFramesFor, whisperLogMel } from './frontends';
export { EMBEDDING_VERSION, layerAggregationFor, settingsKeyFor } from './manifest';
export type { AsrSpec, Family, FrontEnd, LayerAggregation, ModelManifest, StateSpec } from './manifest';
export { BUILTIN_ALIASES, embedOnce, ensureModel, importModel, listBuiltinModels, listImportedModels, listModels, loadBuiltin, modelsDir } from './models';
export type { ImportOptions } from './models';
export { ensureRunnableGraph, isRunnableFile, runnableGraph, RUNNABLE_FILES } from './runnable-graph';
export { createSession, defaultThreads, ortVersion, providerOrder, PROVIDERS } from './providers';
export type { ProviderName, RunInfo } from './providers';
export { borrowRecognizer, calibrationByGroup, createRecognizer, detectAsrFolder, importAsrFolder, utteranceAccuracy } from './asr';
export type { GroupCalibration, Recognizer, RecognizerLease, Transcript } from './asr';
