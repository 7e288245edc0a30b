package main

import (
	"context"
	"log/slog"
	"strings"
)

// quietHandler drops the messages the Beam SDK logs when a pipeline's
// in-process worker shuts down (its data and state channels canceled):
// they say nothing about the pipeline, which reports its own failure.
type quietHandler struct{ slog.Handler }

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "[SDK] StateChannel") || strings.HasPrefix(r.Message, "[SDK] DataChannel") ||
		strings.HasPrefix(r.Message, "[SDK] forcing DataChannel") {
		if strings.Contains(r.Message, "context canceled") || strings.Contains(r.Message, "EOF") {
			return nil
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(as)}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name)}
}

// quietLogs installs quietHandler over the default logger.
func quietLogs() { slog.SetDefault(slog.New(quietHandler{slog.Default().Handler()})) }
