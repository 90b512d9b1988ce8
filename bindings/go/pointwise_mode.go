package cudnnfe

// PointwiseMode is a pointwise operation (unary, binary, comparison, logic, index generation,
// select); the values are the C library's.
type PointwiseMode int32

// The pointwise modes.
const (
	PointwiseAdd               PointwiseMode = 0
	PointwiseMul               PointwiseMode = 1
	PointwiseMin               PointwiseMode = 2
	PointwiseMax               PointwiseMode = 3
	PointwiseSqrt              PointwiseMode = 4
	PointwiseAddSquare         PointwiseMode = 5
	PointwiseDiv               PointwiseMode = 6
	PointwiseMod               PointwiseMode = 7
	PointwisePow               PointwiseMode = 8
	PointwiseSub               PointwiseMode = 9
	PointwiseAbs               PointwiseMode = 10
	PointwiseCeil              PointwiseMode = 11
	PointwiseCos               PointwiseMode = 12
	PointwiseExp               PointwiseMode = 13
	PointwiseFloor             PointwiseMode = 14
	PointwiseLog               PointwiseMode = 15
	PointwiseNeg               PointwiseMode = 16
	PointwiseRsqrt             PointwiseMode = 17
	PointwiseSin               PointwiseMode = 18
	PointwiseTan               PointwiseMode = 19
	PointwiseErf               PointwiseMode = 20
	PointwiseIdentity          PointwiseMode = 21
	PointwiseReciprocal        PointwiseMode = 22
	PointwiseAtan2             PointwiseMode = 23
	PointwiseReluFwd           PointwiseMode = 100
	PointwiseTanhFwd           PointwiseMode = 101
	PointwiseSigmoidFwd        PointwiseMode = 102
	PointwiseEluFwd            PointwiseMode = 103
	PointwiseGeluFwd           PointwiseMode = 104
	PointwiseSoftplusFwd       PointwiseMode = 105
	PointwiseSwishFwd          PointwiseMode = 106
	PointwiseGeluApproxTanhFwd PointwiseMode = 107
	PointwiseReluBwd           PointwiseMode = 200
	PointwiseTanhBwd           PointwiseMode = 201
	PointwiseSigmoidBwd        PointwiseMode = 202
	PointwiseEluBwd            PointwiseMode = 203
	PointwiseGeluBwd           PointwiseMode = 204
	PointwiseSoftplusBwd       PointwiseMode = 205
	PointwiseSwishBwd          PointwiseMode = 206
	PointwiseGeluApproxTanhBwd PointwiseMode = 207
	PointwiseCmpEq             PointwiseMode = 300
	PointwiseCmpNeq            PointwiseMode = 301
	PointwiseCmpGt             PointwiseMode = 302
	PointwiseCmpGe             PointwiseMode = 303
	PointwiseCmpLt             PointwiseMode = 304
	PointwiseCmpLe             PointwiseMode = 305
	PointwiseLogicalAnd        PointwiseMode = 400
	PointwiseLogicalOr         PointwiseMode = 401
	PointwiseLogicalNot        PointwiseMode = 402
	PointwiseGenIndex          PointwiseMode = 501
	PointwiseBinarySelect      PointwiseMode = 601
)
