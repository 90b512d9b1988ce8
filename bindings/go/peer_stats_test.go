package cudnnfe

import (
	"fmt"
	"testing"
)

// Synchronized batchnorm's peer statistics buffers through the generated options mean what they
// mean in C (fe_batchnorm_options_set_peer_stats, fe_norm_backward_options_set_peer_stats): the
// buffers given become the op's inputs peer_stats_0, peer_stats_1, ... in order, and each
// malformed setup is refused with the C library's reason. No GPU needed.

// peerSetup is x [4, 32, 8, 8] half channels-last, its scale and bias, and peer buffers
// [2, 128, 1, 1].
type peerSetup struct {
	t              *testing.T
	g              *Graph
	x, scale, bias *Tensor
	made           int
}

var (
	peerXDims    = []int64{4, 32, 8, 8}
	peerXStrides = []int64{2048, 1, 256, 32}
)

func newPeerSetup(t *testing.T) *peerSetup {
	t.Helper()
	g := halfGraph(t)
	s := &peerSetup{t: t, g: g}
	var err error
	s.x, err = g.Tensor("x", peerXDims, peerXStrides, DataHalf)
	must(t, err)
	s.scale = typed(t, g, "scale", DataFloat, 1, 32, 1, 1)
	s.bias = typed(t, g, "bias", DataFloat, 1, 32, 1, 1)
	return s
}

// peer adds a float peer buffer of these dims with the layout the header gives.
func (s *peerSetup) peer(name string, dims ...int64) *Tensor {
	s.t.Helper()
	p, err := s.g.Tensor(name, dims, []int64{dims[1], 1, dims[1], dims[1]}, DataFloat)
	must(s.t, err)
	return p
}

// peers adds n more peer buffers, named peer0, peer1, ... across calls.
func (s *peerSetup) peers(n int) []*Tensor {
	s.t.Helper()
	out := make([]*Tensor, n)
	for i := range out {
		out[i] = s.peer(fmt.Sprintf("peer%d", s.made), 2, 128, 1, 1)
		s.made++
	}
	return out
}

func (s *peerSetup) dy() *Tensor {
	s.t.Helper()
	dy, err := s.g.Tensor("dy", peerXDims, peerXStrides, DataHalf)
	must(s.t, err)
	return dy
}

func TestPeerStatsBecomeTheInputsOfBatchnormAndItsBackwardInOrder(t *testing.T) {
	s := newPeerSetup(t)
	g := s.g
	defer g.Close()
	r, err := g.Batchnorm(s.x, s.scale, s.bias, &BatchnormOptions{Name: "bn", PeerStats: s.peers(2)})
	must(t, err)
	expectDims(t, r.Y, nil, peerXDims...)
	must(t, r.Y.SetOutput(true))
	d, err := g.BatchnormBackwardWithOptions(s.dy(), s.x, s.scale, r.Mean, r.InvVariance,
		&NormBackwardOptions{Name: "bn_bwd", PeerStats: s.peers(2)})
	must(t, err)
	for _, out := range []*Tensor{d.DX, d.DScale, d.DBias} {
		must(t, out.SetOutput(true))
	}
	must(t, g.Validate())
	expectJSON(t, g, `"name":"bn"`,
		`"bias":"bias","peer_stats_0":"peer0","peer_stats_1":"peer1"}`,
		`"inv_variance":"bn::InvVariance","peer_stats_0":"peer2","peer_stats_1":"peer3"}`)
}

func TestBadPeerStatsAreRefusedWithTheCReason(t *testing.T) {
	s := newPeerSetup(t)
	g := s.g
	defer g.Close()
	peers := s.peers(9)
	refused := func(opts *BatchnormOptions, status Status, why string) {
		t.Helper()
		r, err := g.Batchnorm(s.x, s.scale, s.bias, opts)
		if r != nil {
			t.Errorf("a result for a refused call (%s)", why)
		}
		expectError(t, err, status, why)
	}
	refused(&BatchnormOptions{PeerStats: peers}, StatusInvalidArgument, "at most 8")
	refused(&BatchnormOptions{PeerStats: peers[:1]}, StatusInvalidArgument, "two or more")
	refused(&BatchnormOptions{PeerStats: []*Tensor{peers[0], nil}}, StatusNullPointer, "peer_stats[1] is NULL")
	narrow := s.peer("narrow", 2, 64, 1, 1)
	refused(&BatchnormOptions{PeerStats: []*Tensor{narrow, peers[1]}}, StatusInvalidArgument,
		"peer_stats_0 'narrow' is [2,64,1,1]; it must be [2,128,1,1]")
}

func TestLayernormBackwardTakesNoPeerStats(t *testing.T) {
	s := newPeerSetup(t)
	g := s.g
	defer g.Close()
	scale := typed(t, g, "ln_scale", DataFloat, 1, 32, 8, 8)
	mean := typed(t, g, "mean", DataFloat, 4, 1, 1, 1)
	invVariance := typed(t, g, "inv_variance", DataFloat, 4, 1, 1, 1)
	d, err := g.LayernormBackwardWithOptions(s.dy(), s.x, scale, mean, invVariance,
		&NormBackwardOptions{PeerStats: s.peers(2)})
	if d != nil {
		t.Error("gradients for a refused layernorm_backward")
	}
	expectError(t, err, StatusInvalidArgument, "is not taken by layernorm_backward")
}

func TestAPeerBufferResizedAfterTheOpIsRefusedAtValidation(t *testing.T) {
	s := newPeerSetup(t)
	g := s.g
	defer g.Close()
	peers := s.peers(2)
	r, err := g.Batchnorm(s.x, s.scale, s.bias, &BatchnormOptions{PeerStats: peers})
	must(t, err)
	for _, out := range []*Tensor{r.Y, r.Mean, r.InvVariance} {
		must(t, out.SetOutput(true))
	}
	must(t, g.Validate())
	must(t, peers[0].SetDims(2, 64, 1, 1))
	expectError(t, g.Validate(), StatusInvalidArgument, "peer_stats_0 'peer0' is [2,64,1,1]")
}
