import type { OperationName, OperationResult, ParsedInput } from '../../shared/api';
import type { Engine } from '../engine';

export type Handler<K extends OperationName> = (input: ParsedInput<K>, engine: Engine) => Promise<OperationResult<K>> | OperationResult<K>;

/** A domain's slice of the API implementation. */
export type HandlerMap<K extends OperationName> = { [P in K]: Handler<P> };
