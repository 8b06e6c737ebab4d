// Copyright 2026 The shangmi Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package echo is a gRPC service written by hand, without protoc: a
// ServiceDesc whose messages are raw bytes (Codec), with a unary method
// that answers who called and a bidirectional stream that echoes. The
// tests and the benchmark of this module run it over real grpc-go
// servers and clients.
package echo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// Codec carries messages as they are: every message is a *[]byte.
type Codec struct{}

func (Codec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("echo: cannot marshal %T", v)
	}
	return *b, nil
}

func (Codec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("echo: cannot unmarshal into %T", v)
	}
	*b = append((*b)[:0], data...)
	return nil
}

func (Codec) Name() string { return "raw" }

// Describe is what the unary method reports about the caller, from its
// peer.Peer; the tests set it to read the credentials' AuthInfo.
type Describe func(*peer.Peer) string

// service is the server half.
type service struct{ describe Describe }

// Register adds the service to s. describe (nil: the AuthInfo's type)
// gives the unary method's report on the caller.
func Register(s *grpc.Server, describe Describe) {
	if describe == nil {
		describe = func(p *peer.Peer) string {
			if p.AuthInfo == nil {
				return "none"
			}
			return p.AuthInfo.AuthType()
		}
	}
	s.RegisterService(&serviceDesc, &service{describe: describe})
}

// ServerOptions are what a server of this service needs.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.ForceServerCodec(Codec{})}
}

// DialOptions are what a client of this service needs.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.ForceCodec(Codec{}))}
}

type server interface {
	unary(context.Context, []byte) ([]byte, error)
}

var serviceDesc = grpc.ServiceDesc{
	ServiceName: "shangmi.test.Echo",
	HandlerType: (*server)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Unary",
		Handler: func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			var in []byte
			if err := dec(&in); err != nil {
				return nil, err
			}
			out, err := srv.(*service).unary(ctx, in)
			if err != nil {
				return nil, err
			}
			return &out, nil
		},
	}},
	Streams: []grpc.StreamDesc{{
		StreamName:    "Bidi",
		ServerStreams: true,
		ClientStreams: true,
		Handler: func(_ any, stream grpc.ServerStream) error {
			for {
				var in []byte
				if err := stream.RecvMsg(&in); err != nil {
					return nil // io.EOF: the client is done
				}
				out := append([]byte("echo:"), in...)
				if err := stream.SendMsg(&out); err != nil {
					return err
				}
			}
		},
	}},
}

// unary answers "sleep:DURATION" by waiting that long (or until the
// call's deadline), "who" with the caller's description, and anything
// else with itself.
func (s *service) unary(ctx context.Context, in []byte) ([]byte, error) {
	msg := string(in)
	switch {
	case strings.HasPrefix(msg, "sleep:"):
		d, err := time.ParseDuration(strings.TrimPrefix(msg, "sleep:"))
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		select {
		case <-time.After(d):
			return in, nil
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	case msg == "who":
		p, ok := peer.FromContext(ctx)
		if !ok {
			return nil, status.Error(codes.Internal, "no peer in the context")
		}
		return []byte(s.describe(p)), nil
	}
	return in, nil
}

// Unary calls the unary method.
func Unary(ctx context.Context, cc grpc.ClientConnInterface, in []byte, opts ...grpc.CallOption) ([]byte, error) {
	var out []byte
	err := cc.Invoke(ctx, "/shangmi.test.Echo/Unary", &in, &out, opts...)
	return out, err
}

// Bidi opens the bidirectional stream.
func Bidi(ctx context.Context, cc grpc.ClientConnInterface) (grpc.ClientStream, error) {
	return cc.NewStream(ctx, &serviceDesc.Streams[0], "/shangmi.test.Echo/Bidi")
}
